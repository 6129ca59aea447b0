// The payload ladder through `mcpx serve`'s mcpx_exec, driven by the SDK's own Client over
// stdio: 300 KB, 2 MB and 8 MB arguments and results both ways between the script and a tool, and the
// script's stdout and returned value back to the MCP client. Content is compared by hash.
//
// The client reads with a 64 MB limit (maxBufferSize) and the server's mcp.maxAnswer is raised to 40 MiB:
// an mcpx_exec answer that fits carries stdout and the result twice, as text and as structuredContent,
// so an 8 MB stdout plus an 8 MB result is a ~32 MB message, past the SDK's default 10 MB that an
// agent host would read with (and past the default mcp.maxAnswer, which would cut it: serve-limits.test.ts).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { leftoverProcesses, writeConfig } from "./support.ts";
import {
  MiB,
  PAYLOAD_MODULE,
  RUNGS,
  RUN_TIMEOUT,
  TEST_TIMEOUT_MS,
  argumentScript,
  digestOf,
  expectPayload,
  outputScript,
  resultScript,
} from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

let client: Client;
beforeAll(async () => {
  client = new Client({ name: "workloads-serve", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: MCPX,
      args: ["serve"],
      cwd: sb.dir,
      env: {
        ...sb.env,
        MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify({ read: [PAYLOAD_MODULE] }),
        // the script imports the payload module through exec.sandboxAllow, which only Deno's sandbox grants
        MCPX_EXEC_SANDBOX_ENGINE: "deno",
        MCPX_MCP_MAX_ANSWER: String(40 * MiB),
        // every rung's runs go at once, past the default daemon.maxRuns (8): that bound is tested in serve-requests.test.ts
        MCPX_DAEMON_MAX_RUNS: "32",
      },
      stderr: "ignore",
      maxBufferSize: 64 * MiB,
    }),
  );
});
afterAll(async () => {
  await client?.close();
});

interface Envelope {
  ok: boolean;
  stdout: string;
  result: unknown;
  error: unknown;
}

async function mcpxExec(source: string): Promise<Envelope> {
  const r = (await client.callTool({ name: "mcpx_exec", arguments: { source, timeout: RUN_TIMEOUT, output: "json" } }, undefined, {
    timeout: TEST_TIMEOUT_MS,
  })) as CallToolResult;
  const env = r.structuredContent as unknown as Envelope;
  expect(env.error ?? null).toBeNull();
  expect(r.isError).toBe(false);
  return env;
}

describe.concurrent("the payload ladder through mcpx_exec", () => {
  RUNGS.forEach(({ label, size }, i) => {
    const seed = 400 + i * 10;

    test(
      `a ${label} argument built by the script reaches the tool intact`,
      async () => {
        expect((await mcpxExec(argumentScript(size, seed))).stdout).toBe(`${digestOf(size, seed)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} tool result reaches the script intact`,
      async () => {
        expect((await mcpxExec(resultScript(size, seed + 1))).stdout).toBe(`${digestOf(size, seed + 1)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} stdout and a ${label} returned value reach the MCP client intact`,
      async () => {
        const env = await mcpxExec(outputScript(size, seed + 2));
        expect(env.ok).toBe(true);
        expectPayload(env.stdout, size, seed + 2, "\n");
        expectPayload(env.result, size, seed + 3);
      },
      TEST_TIMEOUT_MS,
    );
  });
});

test("no server process started by this file's runs is left behind once the client closed", async () => {
  await client.close();
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
