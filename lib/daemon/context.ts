// What every route handler gets: the daemon's one session and engine (shared by all runs), its runs
// in flight, and its bounds.

import type { Engine } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import type { Runs } from "./runs.ts";
import type { KeptRuntime } from "../runtime/runtime-sources.ts";
import type { DaemonArtifacts } from "./kept-artifacts.ts";

export interface DaemonDeps {
  session: Session;
  engine: Engine;
  runs: Runs;
  /** the artifacts its runs made, served at /v1/artifacts/ID while kept */
  artifacts: DaemonArtifacts;
  /** a script runtime kept started for the next run (/v1/exec, mcpx_exec) */
  runtimes: KeptRuntime;
  /** Date.now() when the daemon started */
  startedAt: number;
  /** how the daemon is reached, as printed at start-up */
  address: string;
  transport: "unix" | "tcp";
  maxBody: number;
  /** between keep-alive comments on /v1/events */
  keepAliveMs: number;
}

export interface RouteContext {
  deps: DaemonDeps;
  url: URL;
  /** the {name} parts of the route's path, decoded */
  params: Record<string, string>;
}

export type Handler = (req: Request, ctx: RouteContext) => Response | Promise<Response>;
