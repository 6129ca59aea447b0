// `/mcp` on the daemon: the same MCP server over Streamable HTTP, to clients of both protocol eras.
// A request carrying the 2026-07-28 envelope (the SDK v2's own predicate decides) goes to
// http-modern.ts, stateless, as that era is. Every other request is a 2025 one, served as it always
// was, with sessions, by the SDK v1 server (server.ts): an `initialize`
// POST without Mcp-Session-Id opens a session (its own SDK Server and transport, sharing the
// daemon's engine) and the answer carries its id; every later request names it. GET opens the
// session's server-to-client stream, DELETE ends it. Sessions live in memory: a restarted daemon
// answers 404 for an old id, which tells a client to initialize again.
//
// Stateful rather than stateless because a tools/call may outlive one request's patience and talk
// back while it runs (log notifications, elicitation for `ask` hooks), which needs the session's
// streams, and because the conformance suite's SSE scenarios need a session id.

import "../mcp/zod-interpreted.ts";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { readRequestBody } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { Engine } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import type { RuntimeSource } from "../runtime/ready-runtime.ts";
import type { ModernLeg } from "./http-modern.ts";
import { createMcpServer, type McpServerHandle } from "./server.ts";
import { newAgentSession, type AgentSession } from "./agent-session.ts";
import type { RunSlots } from "./tools.ts";

export interface McpHttpDeps {
  engine: Engine;
  session: Session;
  /** the daemon's runtime kept started for the next mcpx_exec run */
  runtimes?: RuntimeSource;
  /** the daemon's runs, where each mcpx_exec run takes a slot (daemon.maxRuns) */
  runs?: RunSlots;
  /**
   * skip the Host/Origin check: only for a listener no browser can reach (a unix socket), where the
   * Host header is whatever the client made up. Default false: the check that stops DNS rebinding.
   */
  anyHost?: boolean;
  /** the largest POST body read, in bytes (daemon.maxBody); a larger one is 413 naming the setting */
  maxBody: number;
}

/**
 * a session no request has touched for this long, with no call running, is closed: a client that vanished without DELETE.
 * Raise it if agents idle longer; never remove it, or sessions leak.
 */
const MCP_SESSION_IDLE_MS = 30 * 60_000;

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  mcp: McpServerHandle;
  lastUsed: number;
}

// per engine, so two daemons in one process (tests) never see each other's sessions
const SESSIONS = new WeakMap<Engine, Map<string, Entry>>();
// the 2026-07-28 leg of each engine, made on its first request (the SDK v2 server is loaded then)
const MODERN = new WeakMap<Engine, ModernLeg>();

async function modernLegOf(deps: McpHttpDeps): Promise<ModernLeg> {
  let leg = MODERN.get(deps.engine);
  if (!leg) {
    const { modernLeg } = await import("./http-modern.ts");
    leg = MODERN.get(deps.engine) ?? modernLeg(deps);
    MODERN.set(deps.engine, leg);
  }
  return leg;
}

function sessionsOf(engine: Engine): Map<string, Entry> {
  let m = SESSIONS.get(engine);
  if (!m) {
    m = new Map();
    SESSIONS.set(engine, m);
  }
  return m;
}

/** one request to `/mcp` (any method); the caller routes the path and checks its own auth first */
export async function handleMcpHttp(req: Request, deps: McpHttpDeps): Promise<Response> {
  if (!deps.anyHost) {
    const bad = foreignOrigin(req);
    if (bad)
      return jsonRpcError(403, -32000, `Forbidden: ${bad}: /mcp answers only requests addressed to localhost, 127.0.0.1 or [::1] (DNS rebinding protection)`);
  }
  // read here rather than by the SDK's transport, so the limit is the daemon's own and its answer names it
  let parsedBody: unknown;
  if (req.method === "POST") {
    const body = await postBody(req, deps.maxBody);
    if (!body.ok) return body.response;
    parsedBody = body.value;
  }
  const sessions = sessionsOf(deps.engine);
  reapIdle(sessions);
  const id = req.headers.get("mcp-session-id");
  if (id !== null) {
    const entry = sessions.get(id);
    if (!entry)
      return jsonRpcError(
        404,
        -32001,
        `Session not found: ${id} is not a live session (it ended, or the daemon restarted); send initialize without Mcp-Session-Id to start one`,
      );
    entry.lastUsed = Date.now();
    return entry.transport.handleRequest(req, { parsedBody });
  }
  if (req.method === "POST") {
    const modern = await modernLegOf(deps);
    if (await modern.claims(req, parsedBody)) return modern.fetch(req, parsedBody);
  } else {
    return jsonRpcError(400, -32000, `Bad Request: ${req.method} needs the Mcp-Session-Id header of a live session; start one with an initialize POST`);
  }

  // no session yet: this must be an initialize, which opens one (the transport refuses anything else)
  // the session's workspace and approvals are its own (agent-session.ts), ended with it however it ends
  const agent = newAgentSession(deps.session);
  const mcp = closingAgent(createMcpServer({ ...deps, agent }), agent);
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (sid) => {
      sessions.set(sid, { transport, mcp, lastUsed: Date.now() });
    },
    onsessionclosed: (sid) => {
      sessions.delete(sid);
      void mcp.close();
    },
  });
  mcp.server.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    agent.close();
  };
  await mcp.server.connect(transport);
  const res = await transport.handleRequest(req, { parsedBody });
  if (transport.sessionId === undefined) void mcp.close(); // not an initialize: nothing to keep
  return res;
}

/** the handle, whose close also ends the agent session it serves */
function closingAgent(mcp: McpServerHandle, agent: AgentSession): McpServerHandle {
  const close = mcp.close;
  return {
    ...mcp,
    async close() {
      await close();
      agent.close();
    },
  };
}

/**
 * A POST's JSON, read at most `max` bytes (a declared Content-Length over it is refused unread, a
 * chunked body as soon as it passes it), or the answer refusing it: 413 naming daemon.maxBody, as
 * /v1 answers, or the SDK's own 400 for a body that is not JSON.
 */
async function postBody(req: Request, max: number): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const body = await readRequestBody(req, max);
  if (body.tooLarge) {
    const declared = req.headers.get("content-length");
    const size = declared !== null && /^\d+$/.test(declared) ? ` (${declared} bytes)` : "";
    return {
      ok: false,
      response: jsonRpcError(
        413,
        -32600,
        `Invalid Request: the request body${size} is larger than daemon.maxBody (${max} bytes): send less (put large ` +
          `input in a file the script reads), or raise daemon.maxBody (MCPX_DAEMON_MAX_BODY, --daemon-max-body) where the daemon runs`,
      ),
    };
  }
  try {
    return { ok: true, value: JSON.parse(body.text) };
  } catch {
    return { ok: false, response: jsonRpcError(400, -32700, "Parse error: Invalid JSON") };
  }
}

/** ends every /mcp session of this engine, and its 2026 exchanges in flight (the daemon calls it when it shuts down) */
export async function closeMcpSessions(engine: Engine): Promise<void> {
  const sessions = sessionsOf(engine);
  const all = [...sessions.values()];
  sessions.clear();
  const modern = MODERN.get(engine);
  MODERN.delete(engine);
  await Promise.all([...all.map((e) => e.mcp.close()), modern?.close()]);
}

/** how many /mcp sessions are open (for health and tests) */
export function mcpSessionCount(engine: Engine): number {
  return sessionsOf(engine).size;
}

/** how many 2026-07-28 exchanges on /mcp still hold a server instance (for tests: each ends with its answer) */
export function mcpExchangeCount(engine: Engine): number {
  return MODERN.get(engine)?.inFlight() ?? 0;
}

function reapIdle(sessions: Map<string, Entry>, now = Date.now()): void {
  for (const [sid, e] of sessions) {
    if (now - e.lastUsed < MCP_SESSION_IDLE_MS || e.mcp.busy()) continue;
    sessions.delete(sid);
    void e.mcp.close();
  }
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** why the Host or Origin header is not a loopback name, or undefined when both are fine (or absent) */
export function foreignOrigin(req: Request): string | undefined {
  const host = req.headers.get("host");
  if (host !== null && !LOOPBACK_HOSTS.has(hostName(host))) return `Host ${JSON.stringify(host)}`;
  const origin = req.headers.get("origin");
  if (origin !== null) {
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === "http:" || u.protocol === "https:") && LOOPBACK_HOSTS.has(u.hostname);
    } catch {
      ok = false;
    }
    if (!ok) return `Origin ${JSON.stringify(origin)}`;
  }
  return undefined;
}

/** "localhost:8080" → "localhost", "[::1]:8080" → "[::1]" */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json" } });
}
