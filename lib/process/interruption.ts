// SIGINT and SIGTERM as an error: a command that waits on something (one `mcpx call`) races its work
// against `interrupted`, so its own finally ends what it started and mcpx exits 130 (INTERRUPTED).
// A handler is installed even when the signal was ignored at start (a shell's background job has
// SIGINT ignored): Bun then handles it, so Ctrl-C or `kill -INT` ends the command as documented.

import { McpxError } from "../errors/mcpx-error.ts";

export interface Interruption {
  /** rejects with an INTERRUPTED McpxError on the first SIGINT or SIGTERM; never resolves */
  interrupted: Promise<never>;
  /** stops handling the signals */
  stop(): void;
}

/**
 * SIGINT and SIGTERM as an abort: a run given `signal` ends its own way (its process group ended,
 * exit 130) and says so in its frames; `stop` stops handling the signals.
 */
export function abortOnSignals(): { signal: AbortSignal; stop(): void } {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: abort.signal,
    stop() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** @param what what the signal ended, for the message ("the call was cancelled and its server ended") */
export function interruption(what: string): Interruption {
  let reject!: (e: Error) => void;
  const interrupted = new Promise<never>((_, r) => (reject = r));
  interrupted.catch(() => {}); // a command that finished first never awaits it
  const on = (signal: NodeJS.Signals) => () => reject(new McpxError(`interrupted by ${signal}: ${what}`, "INTERRUPTED"));
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    interrupted,
    stop() {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
  };
}
