// The 2026-07-28 leg of `/mcp`: the SDK v2's createMcpHandler, strict (`legacy: "reject"`), behind
// its own classification predicate, so the two never disagree on which request is whose. 2025
// requests (every one without the 2026 envelope: `initialize`, session traffic) stay on http.ts's
// sessions and the v1 server, as they always were. That era has no sessions: each request gets an
// instance of server-modern.ts, which the handler closes once the exchange is over.

import { createMcpHandler, isLegacyRequest, type McpHttpHandler } from "@modelcontextprotocol/server";
import { createModernServer, type ModernServerHandle } from "./server-modern.ts";
import type { ServeDeps } from "./tools.ts";
import { newAgentSession } from "./agent-session.ts";

export interface ModernLeg {
  /** whether the request is the 2026 leg's (its body already read, by http.ts, under daemon.maxBody) */
  claims(req: Request, parsedBody: unknown): Promise<boolean>;
  fetch(req: Request, parsedBody: unknown): Promise<Response>;
  /** how many 2026 exchanges have an instance open */
  inFlight(): number;
  /** cancels the runs of the exchanges in flight and waits until they have ended */
  close(): Promise<void>;
}

export function modernLeg(deps: ServeDeps): ModernLeg {
  /** the instances with an exchange in flight */
  const live = new Set<ModernServerHandle>();
  // this era has no session: its requests share one agent session, the daemon's /mcp (agent-session.ts)
  const agent = newAgentSession(deps.session);
  const handler: McpHttpHandler = createMcpHandler(
    () => {
      const mcp = createModernServer({ ...deps, agent });
      live.add(mcp);
      // the handler chains its own onclose around this one
      mcp.server.onclose = () => live.delete(mcp);
      return mcp.server;
    },
    { legacy: "reject", onerror: (e) => deps.session.log("debug", `/mcp (2026-07-28): ${e.message}`) },
  );
  return {
    claims: async (req, parsedBody) => !(await isLegacyRequest(req, parsedBody)),
    fetch: (req, parsedBody) => handler.fetch(req, { parsedBody }),
    inFlight: () => live.size,
    async close() {
      const all = [...live];
      live.clear();
      await Promise.all(all.map((m) => m.close()));
      await handler.close();
      agent.close();
    },
  };
}
