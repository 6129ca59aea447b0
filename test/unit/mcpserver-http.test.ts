// handleMcpHttp, the daemon's /mcp, in process: sessions (initialize opens one and names it, later
// requests must name a live one, DELETE ends it), the DNS-rebinding check on Host and Origin, and
// the refusals a client without a session gets. initialize and tools/list never touch the engine,
// so a stand-in engine is enough here; tool calls are covered end to end through `mcpx serve`.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "../../lib/session/engine.ts";
import type { Session } from "../../lib/session/session.ts";
import { closeMcpSessions, foreignOrigin, handleMcpHttp, mcpExchangeCount, mcpSessionCount } from "../../lib/mcpserver/http.ts";
import { SERVED_TOOL_NAMES } from "../served-tools.ts";

const engine = { ready: Promise.resolve() } as unknown as Engine;
// tools/list reads the skills of the session's directory (lib/mcpserver/skills.ts): an empty one here
const session = { log: () => {}, cwd: mkdtempSync(join(tmpdir(), "mcpx-http-")), env: {} } as unknown as Session;
const deps = { engine, session, maxBody: 4 * 1024 * 1024 };
const URL_ = "http://127.0.0.1:7777/mcp";

afterAll(async () => {
  await closeMcpSessions(engine);
  rmSync(session.cwd, { recursive: true, force: true });
});

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(URL_, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", host: "127.0.0.1:7777", ...headers },
    body: JSON.stringify(body),
  });
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "unit", version: "0" } },
};

/** the JSON-RPC messages of a response, whether it came as JSON or as an SSE stream */
async function messages(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
  }
  return text ? [JSON.parse(text)] : [];
}

async function initialize(): Promise<string> {
  const res = await handleMcpHttp(post(INIT), deps);
  expect(res.status).toBe(200);
  const id = res.headers.get("mcp-session-id");
  expect(id).toBeTruthy();
  const [msg] = await messages(res);
  expect((msg!.result as { serverInfo: { name: string } }).serverInfo.name).toBe("mcpx");
  const ack = await handleMcpHttp(
    post({ jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id!, "mcp-protocol-version": "2025-11-25" }),
    deps,
  );
  expect(ack.status).toBe(202);
  return id!;
}

describe("sessions", () => {
  test("initialize opens a session whose id later requests use: tools/list answers on it", async () => {
    const id = await initialize();
    const res = await handleMcpHttp(
      post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }),
      deps,
    );
    expect(res.status).toBe(200);
    const [msg] = await messages(res);
    expect((msg!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(SERVED_TOOL_NAMES);
  });

  test("DELETE ends a session; its id is then unknown (404 tells the client to initialize again)", async () => {
    const id = await initialize();
    const before = mcpSessionCount(engine);
    const del = await handleMcpHttp(
      new Request(URL_, { method: "DELETE", headers: { host: "localhost", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" } }),
      deps,
    );
    expect(del.status).toBe(200);
    expect(mcpSessionCount(engine)).toBe(before - 1);
    const again = await handleMcpHttp(post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": id }), deps);
    expect(again.status).toBe(404);
    expect(await again.text()).toContain("send initialize without Mcp-Session-Id");
  });

  test("a request naming a session that never existed is 404", async () => {
    const res = await handleMcpHttp(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "no-such-session" }), deps);
    expect(res.status).toBe(404);
  });

  test("anything but initialize without a session is refused, and no session is kept for it", async () => {
    const before = mcpSessionCount(engine);
    const res = await handleMcpHttp(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }), deps);
    expect(res.status).toBe(400);
    expect(mcpSessionCount(engine)).toBe(before);
    // the exchange's server instance is closed once it has answered: a daemon keeps none per request
    expect(mcpExchangeCount(engine)).toBe(0);
  });

  test("GET without a session is a 400 that says how to start one", async () => {
    const res = await handleMcpHttp(new Request(URL_, { method: "GET", headers: { host: "localhost", accept: "text/event-stream" } }), deps);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("initialize");
  });

  test("each engine has its own sessions", async () => {
    const id = await initialize();
    const other = { ...deps, engine: { ready: Promise.resolve() } as unknown as Engine };
    const res = await handleMcpHttp(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id }), other);
    expect(res.status).toBe(404);
  });
});

describe("DNS rebinding protection", () => {
  test("a request addressed to another host is 403 before anything else happens", async () => {
    const res = await handleMcpHttp(post(INIT, { host: "evil.example.com", origin: "http://evil.example.com" }), deps);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("evil.example.com");
  });

  test("anyHost (a unix socket, which no browser reaches) skips the check", async () => {
    const res = await handleMcpHttp(post(INIT, { host: "made-up" }), { ...deps, anyHost: true });
    expect(res.status).toBe(200);
  });

  const cases: Array<{ name: string; headers: Record<string, string>; bad?: string }> = [
    { name: "localhost with a port", headers: { host: "localhost:8080" } },
    { name: "127.0.0.1", headers: { host: "127.0.0.1" } },
    { name: "[::1] with a port", headers: { host: "[::1]:9000" } },
    { name: "no Host at all", headers: {} },
    { name: "a loopback Origin", headers: { host: "localhost", origin: "http://127.0.0.1:3000" } },
    { name: "another host", headers: { host: "evil.example.com" }, bad: 'Host "evil.example.com"' },
    { name: "a loopback name as a subdomain", headers: { host: "localhost.evil.com" }, bad: "Host" },
    {
      name: "a foreign Origin on a loopback Host",
      headers: { host: "localhost", origin: "https://evil.example.com" },
      bad: 'Origin "https://evil.example.com"',
    },
    { name: "an Origin that is not a URL", headers: { host: "localhost", origin: "null" }, bad: 'Origin "null"' },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.bad ? "refused" : "allowed"}`, () => {
      const got = foreignOrigin(new Request(URL_, { headers: c.headers }));
      if (c.bad) expect(got).toContain(c.bad);
      else expect(got).toBeUndefined();
    });
  }
});

describe("2026-07-28 requests", () => {
  const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
  const LIST = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: ENVELOPE } };

  test("one carrying the envelope is answered without a session, with the tools a 2025 session lists and this era's cache fields", async () => {
    const before = mcpSessionCount(engine);
    const res = await handleMcpHttp(post(LIST, HEADERS), deps);
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const [msg] = await messages(res);
    const result = msg!.result as { tools: Array<{ name: string }>; ttlMs?: number; cacheScope?: string };
    expect(result.tools.map((t) => t.name)).toEqual(SERVED_TOOL_NAMES);
    expect(result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) });
    expect(mcpSessionCount(engine)).toBe(before);
    // the exchange's server instance is closed once it has answered: a daemon keeps none per request
    expect(mcpExchangeCount(engine)).toBe(0);
  });

  test("server/discover advertises mcpx and its capabilities", async () => {
    const res = await handleMcpHttp(
      post({ jsonrpc: "2.0", id: 8, method: "server/discover", params: { _meta: ENVELOPE } }, { ...HEADERS, "mcp-method": "server/discover" }),
      deps,
    );
    expect(res.status).toBe(200);
    const [msg] = await messages(res);
    expect(msg!.result).toMatchObject({ supportedVersions: expect.arrayContaining(["2026-07-28"]), capabilities: { tools: {}, resources: {}, prompts: {} } });
  });

  test("a foreign Origin is refused with 403 before the era is even read", async () => {
    const res = await handleMcpHttp(post(LIST, { ...HEADERS, origin: "https://evil.example.com" }), deps);
    expect(res.status).toBe(403);
  });

  test("a body over daemon.maxBody is 413 naming the setting, as a 2025 request's is", async () => {
    const res = await handleMcpHttp(post({ ...LIST, params: { ...LIST.params, pad: "x".repeat(2048) } }, HEADERS), { ...deps, maxBody: 1024 });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("daemon.maxBody");
  });
});
