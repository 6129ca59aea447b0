// mcpx serve (stdio) and the daemon's /mcp (Streamable HTTP) answer MCP clients of both protocol
// eras (docs/mcpserver.md, decision 0020): an SDK v2 client in auto mode and one pinned to
// 2026-07-28 land on 2026-07-28 and use every served feature there (tools, mcpx_call, mcpx_exec,
// resources, prompts); an SDK v1 client still gets the 2025 handshake, 2025-11-25.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fakeServer, MCPX, sandbox } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { writeConfig } from "./support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { SERVED_TOOL_NAMES } from "../served-tools.ts";

const sb = sandbox();
// an ask on fake.add only: a 2026 client, which cannot be sent a request, is never asked
const ASK = { name: "confirm", on: "call", phase: "before", when: { tool: "add" }, run: say({ ask: "really add?" }), effect: "ask" };
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_FEATURES: "1" }) }, hooks: [ASK] });
const TOKEN = "serve-eras-" + Math.random().toString(36).slice(2);
const DOORS = ["mcpx serve", "the daemon's /mcp"] as const;
type Door = (typeof DOORS)[number];
const MODES = { auto: "auto", "pinned to 2026-07-28": { pin: "2026-07-28" } } as const;
type Mode = keyof typeof MODES;

let mcpUrl!: URL;
const clients = new Map<string, V2Client>();
const opened: { close(): Promise<void> }[] = [];

function v2Transport(door: Door) {
  return door === "mcpx serve"
    ? new V2StdioTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" })
    : new V2HttpTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
}

beforeAll(async () => {
  const daemon = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
  mcpUrl = new URL(`${daemon.address}/mcp`);
  for (const door of DOORS)
    for (const [mode, negotiation] of Object.entries(MODES)) {
      const client = new V2Client({ name: "serve-eras", version: "0" }, { versionNegotiation: { mode: negotiation }, capabilities: { elicitation: {} } });
      await client.connect(v2Transport(door));
      clients.set(`${door} ${mode}`, client);
      opened.push(client);
    }
}, 60_000);

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => {});
  await stopDaemons();
});

const textOf = (r: Record<string, unknown>) => ((r.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? "").join("");

for (const door of DOORS)
  for (const mode of Object.keys(MODES) as Mode[]) {
    describe.concurrent(`${door}, a v2 client ${mode}`, () => {
      const client = () => clients.get(`${door} ${mode}`)!;

      test("the connection is 2026-07-28, and mcpx advertised itself through server/discover", () => {
        expect(client().getProtocolEra()).toBe("modern");
        expect(client().getNegotiatedProtocolVersion()).toBe("2026-07-28");
        expect(client().getServerVersion()).toMatchObject({ name: "mcpx" });
        expect(client().getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
        expect(client().getInstructions()).toContain("mcpx_exec runs a script");
      });

      test("it lists mcpx's tools", async () => {
        const { tools } = await client().listTools();
        expect(tools.map((t) => t.name)).toEqual(SERVED_TOOL_NAMES);
      });

      test("mcpx_call calls the fake server's echo through the gate", async () => {
        const r = await client().callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: "hi from 2026" } } });
        expect(r.isError).toBeFalsy();
        expect(textOf(r)).toBe("hi from 2026");
      });

      test("mcpx_exec runs a snippet that calls a server and returns a value", async () => {
        const r = await client().callTool({
          name: "mcpx_exec",
          arguments: { source: 'console.log(await fake.echo({ message: "ran" }));\nexport default () => ({ answer: 42 })' },
        });
        expect(r.isError).toBe(false);
        expect(r.structuredContent).toMatchObject({ ok: true, stdout: "ran\n", result: { answer: 42 } });
        expect(textOf(r)).toBe('ran\nresult: {"answer":42}');
      });

      test("a resource is listed under its wrapped URI and reads back; a prompt gets through SERVER__NAME", async () => {
        const uris = (await client().listResources()).resources.map((r) => r.uri);
        expect(uris).toContain("mcpx://fake/fake%3A%2F%2Fnote");
        const note = await client().readResource({ uri: "mcpx://fake/fake%3A%2F%2Fnote" });
        expect(note.contents[0]).toMatchObject({ uri: "fake://note", text: "a note from fake" });
        expect((await client().listPrompts()).prompts.map((p) => p.name)).toContain("fake__greet");
        const got = await client().getPrompt({ name: "fake__greet", arguments: { name: "Ada" } });
        expect(got.messages[0]!.content).toEqual({ type: "text", text: "Hello Ada" });
      });

      test("an ask hook refuses, though the client declared elicitation: a 2026 server cannot send it a request", async () => {
        const r = await client().callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "add", args: { a: 1, b: 2 } } });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toContain("really add? (asked, and nobody can answer here)");
      });

      test("a URI mcpx did not wrap is the client's mistake, said with the form mcpx's URIs take", async () => {
        const err = await client()
          .readResource({ uri: "fake://note" })
          .then(
            () => undefined,
            (e: Error) => e,
          );
        expect(err?.message).toContain("mcpx's resources are mcpx://SERVER/ENCODED-URI");
      });

      test("the error for a URI mcpx does not serve is Invalid Params and carries that URI in its data", async () => {
        const err = await client()
          .readResource({ uri: "fake://note" })
          .then(
            () => undefined,
            (e: Error & { code?: unknown; data?: unknown }) => e,
          );
        expect(err?.code).toBe(-32602);
        expect(err?.data).toEqual({ uri: "fake://note" });
      });
    });
  }

/** a v1 stdio transport that keeps the protocol version the v1 client settled on at initialize */
class RecordingStdio extends V1StdioTransport {
  protocolVersion?: string;
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
}

describe.concurrent("a v1 client", () => {
  test("on mcpx serve still gets the 2025 handshake, 2025-11-25, and calls a tool", async () => {
    const transport = new RecordingStdio({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" });
    const client = new V1Client({ name: "serve-eras-v1", version: "0" });
    await client.connect(transport);
    opened.push(client);
    expect(transport.protocolVersion).toBe("2025-11-25");
    const r = await client.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: "hi from 2025" } } });
    expect(textOf(r)).toBe("hi from 2025");
  });

  test("on the daemon's /mcp still gets a 2025-11-25 session and calls a tool", async () => {
    const transport = new V1HttpTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    const client = new V1Client({ name: "serve-eras-v1", version: "0" });
    await client.connect(transport);
    opened.push(client);
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(transport.sessionId).toBeString();
    const r = await client.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: "hi from 2025" } } });
    expect(textOf(r)).toBe("hi from 2025");
  });
});
