// mcpx serve and the daemon's /mcp offer the upstream servers' resources and prompts to an SDK
// client, named so two servers cannot collide (docs/mcpserver.md): two servers here offer the very
// same resource URIs and prompt names (two fake servers with FAKE_MCP_FEATURES), beside
// server-everything. A read and a get pass the resource.read and prompt.get hooks.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { everythingServer, fakeServer, MCPX, sandbox } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { writeConfig } from "./support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";

const sb = sandbox();
const GUARD = {
  name: "no-secrets",
  on: "resource.read",
  phase: "before",
  when: { uri: "fake://items/secret" },
  run: say({ refuse: "secret items stay" }),
  effect: "refuse",
};
writeConfig(sb, ".mcpx.json", {
  mcpServers: { a: fakeServer({ FAKE_MCP_FEATURES: "1" }), b: fakeServer({ FAKE_MCP_FEATURES: "1" }), everything: everythingServer() },
  hooks: [GUARD],
});
const TOKEN = "serve-features-" + Math.random().toString(36).slice(2);
const doors: Record<string, Client> = {};

beforeAll(async () => {
  const served = new Client({ name: "serve-features", version: "0" });
  await served.connect(new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" }));
  doors["mcpx serve"] = served;
  const daemon = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
  const http = new Client({ name: "serve-features", version: "0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${daemon.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  doors["the daemon's /mcp"] = http;
}, 60_000);

afterAll(async () => {
  for (const c of Object.values(doors)) await c.close().catch(() => {});
  await stopDaemons();
});

for (const door of ["mcpx serve", "the daemon's /mcp"]) {
  describe.concurrent(door, () => {
    test("it declares resources and prompts and lists them as mcpx://SERVER/ENCODED-URI: two servers' same URI are two resources", async () => {
      const client = doors[door]!;
      expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain("mcpx://a/fake%3A%2F%2Fnote");
      expect(uris).toContain("mcpx://b/fake%3A%2F%2Fnote");
      expect(uris).toContain(`mcpx://everything/${encodeURIComponent("demo://resource/static/document/architecture.md")}`);
    });

    test("a listed resource reads back through its wrapped URI, text and blob alike", async () => {
      const client = doors[door]!;
      const note = await client.readResource({ uri: "mcpx://a/fake%3A%2F%2Fnote" });
      expect(note.contents[0]).toMatchObject({ uri: "fake://note", text: "a note from fake" });
      const blob = await client.readResource({ uri: "mcpx://b/fake%3A%2F%2Fblob" });
      expect((blob.contents[0] as { blob?: string }).blob).toBe(Buffer.from([0, 1, 2, 255]).toString("base64"));
    });

    test("a template keeps its {…} for the client to fill, and the filled URI reads from that server", async () => {
      const client = doors[door]!;
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates).toContain("mcpx://a/fake%3A%2F%2Fitems%2F{id}");
      const item = await client.readResource({ uri: "mcpx://a/fake%3A%2F%2Fitems%2F7" });
      expect(item.contents[0]).toMatchObject({ text: "item 7" });
    });

    test("prompts are listed as SERVER__NAME with their arguments, and get through that name", async () => {
      const client = doors[door]!;
      const prompts = (await client.listPrompts()).prompts;
      expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["a__greet", "b__greet", "everything__args-prompt"]));
      expect(prompts.find((p) => p.name === "a__greet")!.arguments).toContainEqual(expect.objectContaining({ name: "name", required: true }));
      const got = await client.getPrompt({ name: "b__greet", arguments: { name: "Ada" } });
      expect(got.messages[0]!.content).toEqual({ type: "text", text: "Hello Ada" });
    });

    test("a resource.read hook refuses a read through it as it does a script's, with the hook named", async () => {
      const client = doors[door]!;
      await expect(client.readResource({ uri: "mcpx://a/fake%3A%2F%2Fitems%2Fsecret" })).rejects.toThrow("refused by hook no-secrets: secret items stay");
    });

    test("a URI mcpx did not wrap, or one naming no server, is an error saying the form mcpx's URIs take", async () => {
      const client = doors[door]!;
      await expect(client.readResource({ uri: "fake://note" })).rejects.toThrow("mcpx://SERVER/ENCODED-URI");
      await expect(client.readResource({ uri: "mcpx://nope/x" })).rejects.toThrow('names no configured server ("nope"');
      await expect(client.getPrompt({ name: "greet" })).rejects.toThrow("SERVER__NAME");
    });
  });
}
