// One request cannot take down `mcpx serve`'s connection or the host: an answer is never
// larger than mcp.maxAnswer, however much the script prints or returns, and says what was cut; the
// SDK client (which closes the whole connection on a message over 10 MiB) stays connected and the
// next call works. An agent's run has a default time and heap limit (on Deno and Node).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fakeServer, sandbox } from "./harness.ts";
import { serve, writeConfig, type Served } from "./support.ts";

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
/** what the answer weighs on the wire, as the client's 10 MiB check counts it (near enough: the JSON-RPC frame adds a few bytes) */
const wireBytes = (r: Result) => Buffer.byteLength(JSON.stringify(r));
const MiB = 1024 * 1024;

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

let s: Served;
beforeAll(async () => {
  s = await serve(sb);
});
afterAll(async () => {
  await s?.close();
});

describe("mcp.maxAnswer", () => {
  test("a 5.3 MB print is cut to fit 1 MiB, the answer says what was cut and how to get it all, and the next call on the connection works", async () => {
    // without the cap this answer was 10.6 MB (the print in the text and again in structuredContent), over
    // the 10 MiB the client reads, and the client closed the connection
    const r = (await s.client.callTool(
      { name: "mcpx_exec", arguments: { source: 'console.log("x".repeat(5_300_000));\nexport default () => "done"' } },
      undefined,
      { timeout: 120_000 },
    )) as Result;
    expect(s.closed()).toBe(false);
    expect(r.isError).toBe(false);
    expect(wireBytes(r)).toBeLessThanOrEqual(MiB);
    const text = textOf(r);
    expect(text).toStartWith("xxxx");
    expect(text).toContain('result: "done"');
    expect(text).toContain("mcp.maxAnswer");
    expect(text).toContain("stdout: 5300001 bytes");
    // once cut, the output is carried once: in the text, not again in structuredContent
    expect(r.structuredContent).toBeUndefined();
    const next = (await s.client.callTool({ name: "mcpx_exec", arguments: { source: "export default () => 1 + 1" } })) as Result;
    expect(textOf(next)).toBe("result: 2");
    expect(next.structuredContent).toMatchObject({ ok: true, result: 2 });
  }, 180_000);

  test('a 3 MB returned value with output "json" is cut inside the envelope, which still parses, and says so', async () => {
    const r = (await s.client.callTool(
      { name: "mcpx_exec", arguments: { source: 'export default () => ({ big: "y".repeat(3_000_000) })', output: "json" } },
      undefined,
      { timeout: 120_000 },
    )) as Result;
    expect(wireBytes(r)).toBeLessThanOrEqual(MiB);
    const env = JSON.parse(textOf(r)) as { ok: boolean; result: unknown; truncated: { note: string; cut: Record<string, { bytes: number; kept: number }> } };
    expect(env.ok).toBe(true);
    expect(typeof env.result).toBe("string");
    expect(env.truncated.cut.result!.bytes).toBeGreaterThan(3_000_000);
    expect(env.truncated.note).toContain("mcp.maxAnswer");
  }, 180_000);

  test("a smaller mcp.maxAnswer is the server's own bound", async () => {
    const own = await serve(sb, { MCPX_MCP_MAX_ANSWER: "20000" });
    try {
      const r = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: 'console.log("z".repeat(100_000))', output: "stream" } })) as Result;
      expect(wireBytes(r)).toBeLessThanOrEqual(20_000);
      const lines = textOf(r)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; message?: string });
      expect(lines.at(-1)!.type).toBe("end");
      expect(lines.some((l) => l.type === "log" && l.message!.includes("mcp.maxAnswer"))).toBe(true);
    } finally {
      await own.close();
    }
  });

  test("an mcpx_call result over mcp.maxAnswer is an isError answer naming the setting and mcpx_exec, and the connection stays", async () => {
    const r = (await s.client.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: "e".repeat(2_000_000) } } })) as Result;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("fake.echo answered");
    expect(textOf(r)).toContain("mcp.maxAnswer (1048576 bytes)");
    expect(textOf(r)).toContain("mcpx_exec");
    const small = (await s.client.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: "hi" } } })) as Result;
    expect(textOf(small)).toBe("hi");
  });
});

/** a memory bomb: a heap of arrays and, past V8's heap flag, typed arrays (external memory) */
const BOMB = "const keep: unknown[] = [];\nfor (let i = 0; ; i++) keep.push(i % 2 ? new Array(1e6).fill(i) : new Uint8Array(8e6).fill(1));";

describe("an agent's run has a time and a heap limit by default", () => {
  test("a busy loop ends at exec.agentTimeout with an error naming it, and the server answers the next call", async () => {
    const own = await serve(sb, { MCPX_EXEC_AGENT_TIMEOUT: "2s" });
    try {
      const r = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: "for (;;) {}" } })) as Result;
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ exitCode: 124, error: { code: "TIMEOUT" } });
      expect(textOf(r)).toContain("2000ms (exec.agentTimeout");
      // the run's own timeout cannot lift the limit: 0 is "none of its own"
      const asked = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: "for (;;) {}", timeoutMs: 0 } })) as Result;
      expect(asked.structuredContent).toMatchObject({ exitCode: 124 });
      const next = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: "export default () => 3" } })) as Result;
      expect(textOf(next)).toBe("result: 3");
    } finally {
      await own.close();
    }
  }, 60_000);

  // the sandbox is Deno; Node is a runtime of a server whose exec.sandbox is off. Not Bun: the embedded
  // Bun has no heap limit (lib/process/data-limit.ts says why), and this bomb would take the host
  for (const runtime of ["deno", "node"] as const) {
    test(`a memory bomb on ${runtime} ends at exec.agentMaxHeap with an error naming it, and the server answers the next call`, async () => {
      const own = await serve(sb, { MCPX_EXEC_AGENT_MAX_HEAP: "128", ...(runtime === "deno" ? {} : { MCPX_EXEC_SANDBOX: "off" }) });
      try {
        const r = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: BOMB, runtime } }, undefined, { timeout: 120_000 })) as Result;
        expect(r.isError).toBe(true);
        expect(r.structuredContent).toMatchObject({ error: { name: "HeapLimitError" } });
        expect(textOf(r)).toContain("heap limit of 128 MiB (exec.agentMaxHeap)");
        const next = (await own.client.callTool({ name: "mcpx_exec", arguments: { source: "export default () => 4", runtime } })) as Result;
        expect(textOf(next)).toBe("result: 4");
      } finally {
        await own.close();
      }
    }, 150_000);
  }
});
