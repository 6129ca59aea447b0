// Which run an operation belongs to, across awaits: a server starts inside some run's call, and the
// server.start hooks' frames belong in that run's stream, even when a daemon runs many at once, and
// so do the call frames of the calls a hook makes.

import { AsyncLocalStorage } from "node:async_hooks";
import type { Door } from "../telemetry/tap.ts";
import type { HookFrameBody } from "./types.ts";

export interface RunContext {
  runId?: string;
  hookFrame(f: HookFrameBody): void;
  /** any other frame of the run's stream: the call frames of calls a hook makes (call-chain.ts); absent where there is no stream */
  frame?(f: { type: string }): void;
  /** the door the operation came through, for the telemetry tap (a call outside a run has no run to say it) */
  door?: Door;
}

export const runContext = new AsyncLocalStorage<RunContext>();
