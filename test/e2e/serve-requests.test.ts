// One request cannot take down `mcpx serve`: a request line longer than mcp.maxMessage is
// answered with a JSON-RPC error naming its size, the setting and how to raise it, when its id can be
// read from the start or the end of the line, and the server keeps serving; a line without a
// readable id gets one stderr line. Before, the SDK's transport closed itself when its buffer passed
// the limit, and `mcpx serve` took that close for a shutdown: exit 0, not a word. And `mcpx serve`
// runs at most daemon.maxRuns mcpx_exec scripts at once, as the daemon does: one client may send many.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { heldRuns, serve, writeConfig, type Served } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

describe("a request over mcp.maxMessage through a real SDK client", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(sb);
  });
  afterAll(async () => {
    await s?.close();
  });

  test("a 70 MB tools/call is answered -32600 naming its size and mcp.maxMessage, and the next call on the connection is answered", async () => {
    // the SDK client writes the id last: it is read from the end of the line
    const big = "x".repeat(70 * 1024 * 1024);
    const failed = await s.client.callTool({ name: "mcpx_exec", arguments: { source: `export default () => ${JSON.stringify(big)}.length` } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(McpError);
    expect((failed as McpError).code).toBe(-32600);
    const message = (failed as McpError).message;
    expect(message).toContain("mcp.maxMessage (67108864 bytes)");
    expect(message).toMatch(/7340\d{4} bytes/);
    expect(message).toContain("MCPX_MCP_MAX_MESSAGE");
    expect(s.closed()).toBe(false);
    const next = await s.client.callTool({ name: "mcpx_exec", arguments: { source: "export default () => 1 + 1" } });
    expect(next.structuredContent).toMatchObject({ ok: true, result: 2 });
  }, 120_000);
});

/** `mcpx serve` spoken to in raw lines: what it answers, by id, and what it says on stderr */
async function rawServe(env: Record<string, string>) {
  const proc = Bun.spawn([MCPX, "serve"], { cwd: sb.dir, env: { ...sb.env, ...env }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const answers = new Map<unknown, Record<string, unknown>>();
  const waiters = new Map<unknown, () => void>();
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk);
  })();
  void (async () => {
    let buf = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      buf += new TextDecoder().decode(chunk);
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const m = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
        buf = buf.slice(nl + 1);
        answers.set(m.id, m);
        waiters.get(m.id)?.();
      }
    }
  })();
  const write = (line: string) => {
    proc.stdin.write(line + "\n");
    proc.stdin.flush();
  };
  // a server that exits instead of answering fails the test at once, saying so
  const gone = proc.exited.then((code) => Promise.reject(new Error(`mcpx serve exited ${code} before answering; stderr: ${stderr}`)));
  void gone.catch(() => {});
  const answer = (id: unknown) =>
    answers.has(id)
      ? Promise.resolve(answers.get(id)!)
      : Promise.race([new Promise<Record<string, unknown>>((r) => waiters.set(id, () => r(answers.get(id)!))), gone]);
  write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    }),
  );
  await answer(0);
  write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return {
    write,
    answer,
    stderr: () => stderr,
    /** ends stdin and resolves with the exit code */
    async close() {
      proc.stdin.end();
      return proc.exited;
    },
    exitedEarly: () => proc.exitCode !== null,
  };
}

describe("an oversized line in raw bytes", () => {
  test("an id at the start of the line is answered, a line without an id gets one stderr line, and a later request is answered", async () => {
    const s = await rawServe({ MCPX_MCP_MAX_MESSAGE: "100000" });
    try {
      const pad = "y".repeat(300_000);
      // id first, then a large params object: read from the start of the line
      s.write(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"mcpx_exec","arguments":{"source":"${pad}"}}}`);
      const first = await s.answer("first");
      expect(first.error).toMatchObject({ code: -32600 });
      expect((first.error as { message: string }).message).toContain("mcp.maxMessage (100000 bytes)");
      expect((first.error as { message: string }).message).toContain("300");
      // a notification has no id to answer: it is said on stderr and skipped
      s.write(`{"jsonrpc":"2.0","method":"notifications/whatever","params":{"pad":"${pad}"}}`);
      s.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
      const listed = await s.answer(7);
      expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      expect(s.stderr()).toContain("mcp.maxMessage");
      expect(s.stderr()).toContain("no id");
      expect(s.exitedEarly()).toBe(false);
    } finally {
      expect(await s.close()).toBe(0);
    }
  }, 60_000);
});

describe("daemon.maxRuns on mcpx serve", () => {
  test("with maxRuns mcpx_exec runs going, the next is an isError result naming daemon.maxRuns, and once one ends the next runs", async () => {
    const held = heldRuns(sb, "serve");
    // mcpx_exec is sandboxed: the script may write and read the handshake files because this server says so
    const s = await serve(sb, { MCPX_DAEMON_MAX_RUNS: "1", MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify(held.sandboxAllow), MCPX_EXEC_SANDBOX_ENGINE: "deno" });
    const exec = (src: string) => s.client.callTool({ name: "mcpx_exec", arguments: { source: src } }) as Promise<CallToolResult>;
    try {
      const first = exec(held.source);
      await held.startedAtLeast(1);
      const refused = await exec("return 1");
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toContain("daemon.maxRuns (1)");
      held.release();
      expect((await first).structuredContent).toMatchObject({ ok: true, result: "released" });
      expect((await exec("return 2")).structuredContent).toMatchObject({ ok: true, result: 2 });
      // one script ran while the other was refused: counted by the runs themselves
      expect(held.started()).toBe(1);
    } finally {
      await s.close();
    }
  }, 60_000);
});
