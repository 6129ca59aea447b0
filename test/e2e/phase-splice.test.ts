// A request's script phases layer over the server's own by the null-splice rule, as every repeatable
// setting does: a phase given replaces the server's lines for it, unless it holds "-" (or null), where
// the server's lines go. Before, mcpx_exec and /v1/exec took the request's phase as it was: null was
// refused by the schema and "-" ran as a line of source (a syntax error).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MCPX, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";
import { writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { script: { before: ['console.log("server")'] } });
let daemon: Daemon;
let client: Client;

beforeAll(async () => {
  daemon = await startDaemon(sb);
  client = new Client({ name: "phase-splice", version: "0" });
  await client.connect(new StdioClientTransport({ command: MCPX, args: ["serve", "--sandbox", "off"], cwd: sb.dir, env: sb.env, stderr: "ignore" }));
}, 60_000);

afterAll(async () => {
  await client.close();
  await stopDaemons();
});

const viaMcp = async (script: Record<string, unknown>) =>
  (await client.callTool({ name: "mcpx_exec", arguments: { source: 'console.log("body")', script } })).structuredContent as {
    stdout: string;
    ok: boolean;
    error?: { message: string };
  };
const viaHttp = async (script: Record<string, unknown>) => {
  const res = await daemon.fetch("/v1/exec", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ source: 'console.log("body")', script, output: "json" }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { stdout: string; ok: boolean; error?: { message: string } };
};

for (const [door, run] of [
  ["mcpx_exec", viaMcp],
  ["POST /v1/exec", viaHttp],
] as const) {
  describe(`${door}: a request's phase over the server's`, () => {
    test('"-" splices the server\'s lines in at its place', async () => {
      expect((await run({ before: ['console.log("mine")', "-", 'console.log("after")'] })).stdout).toBe("mine\nserver\nafter\nbody\n");
    });
    test("null does the same", async () => {
      expect((await run({ before: [null, 'console.log("mine")'] })).stdout).toBe("server\nmine\nbody\n");
    });
    test("without either the request's lines replace the server's, and a phase left out keeps them", async () => {
      expect((await run({ before: ['console.log("mine")'] })).stdout).toBe("mine\nbody\n");
      expect((await run({})).stdout).toBe("server\nbody\n");
    });
  });
}

test("a spliced line that throws is named by where it came from: the server's config file", async () => {
  const local = sandbox();
  const file = writeConfig(local, ".mcpx.json", { script: { before: ['throw new Error("from config")'] } });
  const d = await startDaemon(local);
  const res = await d.fetch("/v1/exec", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ source: "1", script: { before: ["-"] }, output: "json" }),
  });
  const envelope = (await res.json()) as { ok: boolean; error: { message: string } };
  expect(envelope.ok).toBe(false);
  expect(JSON.stringify(envelope)).toContain(file);
});
