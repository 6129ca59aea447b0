// One request cannot take down the daemon or the host (issue 19). A body over daemon.maxBody on /mcp
// is refused with 413 and a JSON-RPC error naming the limit and the setting, as /v1 bodies are, and
// the session goes on. (Before, /mcp read any body up to Bun's own cap, a megabyte above the setting.)

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fakeServer, sandbox } from "./harness.ts";
import { writeConfig } from "./support.ts";
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
