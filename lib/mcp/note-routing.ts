// Where a server's notifications go (pool.ts): its notifications/message to the runs that called it
// and are still going (their log frames), or to the process's log when none is; a call's
// notifications/progress to the status line and the run's progress frames. A run's end cancels its
// calls still in flight.

import type { PoolOptions } from "./pool-options.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import { mcpLevelOf, serverLogOf, serverLogText, type CallNotes, type Progress, type ServerLog } from "./server-notes.ts";

/** the envelope key of a request's log level (MCP 2026-07-28, SEP-2577) */
const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

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

  /**
   * A 2026-07-28 connection's logs: its notifications/message routed as a 2025 server's are, and
   * logging.level asked on every request, as that era asks (the `_meta` envelope's logLevel key; it
   * has no session for a logging/setLevel to last). The SDK v2 client adds the rest of the envelope
   * and lets a caller's `_meta` keys stand beside it.
   */
  modernLogs(server: string, client: ModernClient): void {
    client.setNotificationHandler("notifications/message", (n) => this.serverLog(serverLogOf(server, n.params)));
    const level = this.opts.logLevel;
    if (!level) return;
    const send = client.request.bind(client);
    client.request = ((req: { method: string; params?: Record<string, unknown> }, ...rest: unknown[]) =>
      (send as (...a: unknown[]) => unknown)(
        { ...req, params: { ...req.params, _meta: { [LOG_LEVEL_META_KEY]: mcpLevelOf(level), ...(req.params?._meta as object | undefined) } } },
        ...rest,
      )) as typeof client.request;
  }
}
