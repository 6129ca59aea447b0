// Where a server's notifications go (pool.ts): its notifications/message to the runs that called it
// and are still going (their log frames), or to the process's log when none is; a call's
// notifications/progress to the status line and the run's progress frames. A run's end cancels its
// calls still in flight.

import type { PoolOptions } from "./pool-options.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mcpLevelOf, serverLogText, type CallNotes, type Progress, type ServerLog } from "./server-notes.ts";

export class NoteRouting {
  /** the runs that called each server and are still going */
  private readonly runs = new Map<string, Set<CallNotes>>();

  constructor(
    private readonly opts: Pick<PoolOptions, "log" | "onProgress" | "logLevel">,
    /** cancels the run's calls to the server that are still in flight (the lean path's; the SDK's take the signal) */
    private readonly cancelCalls: (server: string, notes: CallNotes) => void,
  ) {}

  /**
   * a call's notifications/progress, for opts.onProgress (a status line) and the run's progress frames;
   * undefined when nobody takes them, and then no progressToken is sent
   */
  progressOf(server: string, tool: string, notes: CallNotes | undefined): ((p: Progress) => void) | undefined {
    const shown = this.opts.onProgress;
    if (!notes) return shown && ((p) => shown(server, tool, p));
    return (p) => {
      shown?.(server, tool, p);
      notes.progress(server, tool, p);
    };
  }

  /** the run takes the server's logs from now until it ends, when its calls still in flight are cancelled */
  listen(server: string, notes: CallNotes): void {
    let runs = this.runs.get(server);
    if (runs?.has(notes)) return;
    if (!runs) {
      runs = new Set();
      this.runs.set(server, runs);
    }
    runs.add(notes);
    notes.signal.addEventListener(
      "abort",
      () => {
        this.runs.get(server)?.delete(notes);
        // the SDK's own requests (a server without the lean path) were given the signal itself
        this.cancelCalls(server, notes);
      },
      { once: true },
    );
  }

  /** a server's notifications/message: to the runs that called it, or to the process's log when none is going */
  serverLog(l: ServerLog): void {
    const runs = this.runs.get(l.server);
    if (runs?.size) for (const run of runs) run.log(l);
    else this.opts.log(l.level, serverLogText(l), l.server);
  }

  /**
   * logging/setLevel from logging.level, for a server that declares logging. Not awaited: the server
   * reads it before any request sent after it, and a one-shot call waits for no extra round trip.
   */
  askLevel(server: string, client: Pick<Client, "getServerCapabilities" | "setLoggingLevel">): void {
    if (!client.getServerCapabilities()?.logging || !this.opts.logLevel) return;
    client
      .setLoggingLevel(mcpLevelOf(this.opts.logLevel))
      .catch((e: unknown) => this.opts.log("debug", `${server}: logging/setLevel failed: ${(e as Error).message}`));
  }
}
