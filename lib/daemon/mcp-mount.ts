// ── MOUNT POINT: /mcp ──────────────────────────────────────────────────────────────────────────
// mcpx as an MCP server over Streamable HTTP lives in lib/mcpserver/ (its own owner); the daemon only
// mounts it here, after its own bearer check, on the daemon's one engine. On a unix socket the Host
// header is whatever the client made up (no browser can reach the socket), so the DNS-rebinding
// check is skipped there and kept on TCP.

import { closeMcpSessions, handleMcpHttp } from "../mcpserver/http.ts";
import type { Engine } from "../session/engine.ts";
import type { Handler } from "./context.ts";

export const mcpRoute: Handler = (req, { deps }) => {
  return handleMcpHttp(req, {
    session: deps.session,
    engine: deps.engine,
    runtimes: deps.runtimes,
    // mcpx_exec runs take their slot among /v1/exec's (daemon.maxRuns)
    runs: deps.runs,
    anyHost: deps.transport === "unix",
    maxBody: deps.maxBody,
  });
};

/** ends every /mcp session on shutdown, before the engine they share closes */
export function closeMcp(engine: Engine): Promise<void> {
  return closeMcpSessions(engine);
}
