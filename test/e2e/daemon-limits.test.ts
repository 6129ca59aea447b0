// One request cannot take down the daemon or the host. A body over daemon.maxBody on /mcp
// is refused with 413 and a JSON-RPC error naming the limit and the setting, as /v1 bodies are, and
// the session goes on (before, the SDK's own 4 MiB applied, naming no setting). At most
// daemon.maxRuns scripts run at once, /v1/exec and /mcp's mcpx_exec counted together: the excess is
// answered at once, 503 with Retry-After or an isError result, both naming the setting (before,
// 200 concurrent runs were all started, 7.3 GB at the peak).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fakeServer, sandbox } from "./harness.ts";
import { heldRuns, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const TOKEN = "daemon-limits-e2e-" + Math.random().toString(36).slice(2);
const auth = { authorization: `Bearer ${TOKEN}` };

afterAll(stopDaemons);

/** an SDK client on the daemon's /mcp over TCP */
async function mcpClient(d: Daemon): Promise<Client> {
  const client = new Client({ name: "daemon-limits-e2e", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${d.address}/mcp`), { requestInit: { headers: auth } }));
  return client;
}

describe("daemon.maxBody on /mcp", () => {
  let d: Daemon;
  let client: Client;
  beforeAll(async () => {
    d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN, MCPX_DAEMON_MAX_BODY: "100000" } });
    client = await mcpClient(d);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  test("a tools/call over daemon.maxBody fails naming the limit and the setting, and the next call on the session is answered", async () => {
    const failed = await client.callTool({ name: "mcpx_exec", arguments: { source: `return ${JSON.stringify("x".repeat(300_000))}.length` } }).then(
      () => ({ code: 200, message: "answered" }),
      (e: Error & { code?: number }) => ({ code: e.code, message: e.message }),
    );
    // the SDK's StreamableHTTPError carries the HTTP status as its code, and the body in its message
    expect(failed.code).toBe(413);
    expect(failed.message).toContain("daemon.maxBody (100000 bytes)");
    const next = await client.callTool({ name: "mcpx_exec", arguments: { source: "return 1 + 1" } });
    expect(next.structuredContent).toMatchObject({ ok: true, result: 2 });
  }, 60_000);

  test("a chunked body without Content-Length is counted as it is read and refused with a JSON-RPC error body", async () => {
    const piece = new TextEncoder().encode("y".repeat(10_000));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        // far past the limit and Bun's own cap: the daemon stops reading at its own limit
        if (sent++ < 500) c.enqueue(piece);
        else c.close();
      },
    });
    const res = await d.fetch("/mcp", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
    });
    expect(res.status).toBe(413);
    const answer = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(answer.error.message).toContain("daemon.maxBody (100000 bytes)");
    expect(answer.error.message).toContain("MCPX_DAEMON_MAX_BODY");
  });
});

describe("daemon.maxRuns", () => {
  const MAX = 2;
  const held = heldRuns(sb, "daemon");
  const source = held.source;
  let d: Daemon;
  let client: Client;
  beforeAll(async () => {
    d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], {
      env: {
        MCPX_DAEMON_TOKEN: TOKEN,
        MCPX_DAEMON_MAX_RUNS: String(MAX),
        // mcpx_exec is sandboxed: its script may write and read the test's handshake files because this daemon says so
        MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify(held.sandboxAllow),
        // the handshake files are read and written through exec.sandboxAllow, which only Deno's sandbox grants
        MCPX_EXEC_SANDBOX_ENGINE: "deno",
      },
    });
    client = await mcpClient(d);
  }, 60_000);
  afterAll(async () => {
    held.release();
    await client?.close();
  });

  const v1Exec = (body: Record<string, unknown>) =>
    d.fetch("/v1/exec", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ output: "json", ...body }) });
  const mcpExec = (args: Record<string, unknown>) => client.callTool({ name: "mcpx_exec", arguments: args }) as Promise<CallToolResult>;
  const text = (r: CallToolResult) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");

  test("with maxRuns runs going on both doors, every further run is refused at once naming daemon.maxRuns, and once they end runs are accepted", async () => {
    // the slots fill one door at a time, each run seen started by itself before the next is sent
    const v1Held = v1Exec({ source });
    await held.startedAtLeast(1);
    const mcpHeld = mcpExec({ source });
    await held.startedAtLeast(2);

    // more than the limit at once, from both doors: each is answered while the two still run
    const [v1a, v1b, mcpa, mcpb] = await Promise.all([v1Exec({ source }), v1Exec({ source }), mcpExec({ source }), mcpExec({ source })]);
    for (const res of [v1a, v1b]) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("BUSY");
      expect(body.error.message).toContain(`daemon.maxRuns (${MAX})`);
    }
    for (const r of [mcpa, mcpb]) {
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`daemon.maxRuns (${MAX})`);
    }
    // counted by the runs themselves: no refused request started a script
    expect(held.started()).toBe(MAX);
    const health = (await (await d.fetch("/v1/health", { headers: auth })).json()) as { runs: { active: number } };
    expect(health.runs.active).toBe(MAX);

    held.release();
    const v1Done = await v1Held;
    expect(v1Done.status).toBe(200);
    expect(await v1Done.json()).toMatchObject({ ok: true, result: "released" });
    expect((await mcpHeld).structuredContent).toMatchObject({ ok: true, result: "released" });

    // the slots are free again: as many runs as the limit, from both doors, all run
    const again = await Promise.all([v1Exec({ source: "return 1" }), mcpExec({ source: "return 2" })]);
    expect(await again[0].json()).toMatchObject({ ok: true, result: 1 });
    expect(again[1].structuredContent).toMatchObject({ ok: true, result: 2 });
  }, 120_000);
});
