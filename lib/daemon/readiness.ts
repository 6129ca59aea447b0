// GET /v1/health/ready: whether the daemon should be sent work. Liveness (GET /v1/health) says the
// process serves; readiness says its configured servers are up and it is not draining, so an
// orchestrator routes requests only to a daemon that can run them (docs/decisions/0025). The
// decision is a pure function over what the pool reports; the route is its only I/O.

import type { ServerStartState } from "../mcp/pool.ts";
import type { Handler } from "./context.ts";
import { json } from "./http.ts";

/** one server's state as readiness shows it: "up", "starting", "down" or "failed: WHY" */
type ServerReadiness = "up" | "starting" | "down" | `failed: ${string}`;

export interface Readiness {
  ready: boolean;
  /** true once SIGTERM began the drain: never ready again */
  draining: boolean;
  /** every configured (usable) server, in config order */
  servers: Record<string, ServerReadiness>;
  /** when not ready, what stands in the way and what would change it */
  why?: string;
}

/**
 * Ready when not draining and every server is up. `startServers` only changes the advice: without it
 * a server starts on its first use, so a daemon nobody has used yet is not ready, by design.
 */
export function readiness(states: ReadonlyArray<[string, ServerStartState]>, draining: boolean, startServers: boolean): Readiness {
  const servers: Record<string, ServerReadiness> = {};
  for (const [name, s] of states) servers[name] = s.state === "failed" ? `failed: ${s.reason}` : s.state;
  const notUp = states.filter(([, s]) => s.state !== "up").map(([name]) => name);
  if (draining) return { ready: false, draining, servers, why: "the daemon is draining (it got SIGTERM) and takes no new runs" };
  if (notUp.length === 0) return { ready: true, draining, servers };
  const advice = startServers
    ? "daemon.startServers starts them at boot; a check like this one starts a down or failed one again"
    : "they start on first use: set daemon.startServers (MCPX_DAEMON_START_SERVERS=1) to start them when the daemon starts";
  return { ready: false, draining, servers, why: `not up: ${notUp.join(", ")} (${advice})` };
}

type Deps = Parameters<Handler>[1]["deps"];

/** each configured server's start state in the daemon's pool */
function serverStates(deps: Deps): Array<[string, ServerStartState]> {
  const pool = deps.engine.pool;
  return pool.names().map((name) => [name, pool.startState(name)]);
}

/** the daemon's readiness now, as the pool and the drain say (no server is started by asking) */
export function readinessOf(deps: Deps): Readiness {
  return readiness(serverStates(deps), deps.runs.draining, deps.session.get("daemon.startServers"));
}

/** 200 when ready, 503 otherwise; with daemon.startServers, a down or failed server is started again after the answer is made */
export const readyRoute: Handler = (_req, { deps }) => {
  const pool = deps.engine.pool;
  const states = serverStates(deps);
  const startServers = deps.session.get("daemon.startServers");
  const answer = readiness(states, deps.runs.draining, startServers);
  // after the answer: a failed server's reason is shown at each check rather than hidden by its retry's "starting"
  if (startServers && !answer.draining) for (const [name, s] of states) if (s.state === "down" || s.state === "failed") void pool.start(name).catch(() => {});
  return json(answer, answer.ready ? 200 : 503);
};
