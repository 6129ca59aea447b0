// Which run an operation belongs to, across awaits: a server starts inside some run's call, and the
// server.start hooks' frames belong in that run's stream, even when a daemon runs many at once, and
// so do the call frames of the calls a hook makes.

import { AsyncLocalStorage } from "node:async_hooks";
import type { HookFrameBody } from "./types.ts";

export interface RunContext {
  runId?: string;
  hookFrame(f: HookFrameBody): void;
  /** any other frame of the run's stream: the call frames of calls a hook makes (call-chain.ts); absent where there is no stream */
  frame?(f: { type: string }): void;
}

export const runContext = new AsyncLocalStorage<RunContext>();
