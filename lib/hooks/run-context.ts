// Which run an operation belongs to, across awaits: a server starts inside some run's call, and the
// server.start hooks' frames belong in that run's stream, even when a daemon runs many at once.

import { AsyncLocalStorage } from "node:async_hooks";
import type { HookFrameBody } from "./types.ts";

export interface RunContext {
  runId?: string;
  hookFrame(f: HookFrameBody): void;
}

export const runContext = new AsyncLocalStorage<RunContext>();
