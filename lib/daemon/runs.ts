// The daemon's runs in flight: each has its own AbortController (fed by the client's disconnect and
// by shutdown), and shutdown waits for every one to have ended its process group. At most `max` run
// at once (daemon.maxRuns): /v1/exec and /mcp's mcpx_exec take their slot here, and `mcpx serve`
// counts its own mcpx_exec runs with one of these too.

import type { Session } from "../session/session.ts";
import { SettingsError } from "../settings/resolve.ts";

export interface RunHandle {
  readonly signal: AbortSignal;
  abort(): void;
  /** the run's frame stream has ended: its process group is gone */
  done(): void;
}

/** a run not started because `max` runs are going, or the daemon is draining: what to tell its caller */
export interface RunsBusy {
  busy: string;
  /** the error code of the 503: BUSY, daemon.maxRuns are going; DRAINING: the daemon is ending (SIGTERM) and takes no new run */
  kind: "BUSY" | "DRAINING";
}

/** what a draining daemon tells a new run's caller */
const DRAINING_MESSAGE =
  "the daemon is draining (it got SIGTERM): runs in flight may finish within daemon.drainGrace, new ones are refused; " +
  "send this to another mcpx daemon, or again once this one has been started again";

export class Runs {
  private readonly live = new Set<{ ctrl: AbortController; finished: Promise<void> }>();
  private count = 0;
  /** script runs going (start), the ones max bounds */
  private scripts = 0;
  /** once stopAll has begun, a run that starts is cancelled at once (the daemon is going away) */
  private closing = false;
  /** once drain has begun, a new run or request is refused (RunsBusy DRAINING) */
  private drainingNow = false;

  /** @param max the most runs at once (daemon.maxRuns); 0 = no limit */
  constructor(private readonly max = 0) {}

  get active(): number {
    return this.live.size;
  }

  get total(): number {
    return this.count;
  }

  /** true once drain() was called: new runs are refused */
  get draining(): boolean {
    return this.drainingNow;
  }

  /**
   * A new script run, cancelled when `signal` (the request's) aborts; or, with `max` scripts running,
   * none: the caller answers at once (503 with Retry-After, an isError result) rather than queue it,
   * so a burst of requests holds no memory and no client waits without knowing why.
   */
  start(signal?: AbortSignal): RunHandle | RunsBusy {
    if (this.drainingNow) return { busy: DRAINING_MESSAGE, kind: "DRAINING" };
    if (this.max > 0 && this.scripts >= this.max) {
      return {
        busy:
          `${this.scripts} runs are going, as many as daemon.maxRuns (${this.max}) allows: try again ` +
          `when one has ended, or raise daemon.maxRuns (MCPX_DAEMON_MAX_RUNS) where mcpx runs`,
        kind: "BUSY",
      };
    }
    this.scripts++;
    return this.begin(signal, () => this.scripts--);
  }

  /** a request that is no script (one /v1/call): cancelled with the rest on shutdown, not counted against max, refused while draining */
  track(signal?: AbortSignal): RunHandle | RunsBusy {
    if (this.drainingNow) return { busy: DRAINING_MESSAGE, kind: "DRAINING" };
    return this.begin(signal, () => {});
  }

  private begin(signal: AbortSignal | undefined, ended: () => void): RunHandle {
    const ctrl = new AbortController();
    let resolve!: () => void;
    const entry = { ctrl, finished: new Promise<void>((r) => (resolve = r)) };
    this.live.add(entry);
    this.count++;
    const onAbort = () => ctrl.abort();
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted || this.closing) ctrl.abort();
    return {
      signal: ctrl.signal,
      abort: () => ctrl.abort(),
      done: () => {
        signal?.removeEventListener("abort", onAbort);
        if (!this.live.delete(entry)) return;
        ended();
        resolve();
      },
    };
  }

  /**
   * Refuses new runs from here on and waits (at most `graceMs`) for the runs in flight to end on their
   * own; resolves with how many are still going (stopAll cancels them). Nothing can start meanwhile,
   * so the runs in flight now are all there is to wait for.
   */
  async drain(graceMs: number): Promise<number> {
    this.drainingNow = true;
    const entries = [...this.live];
    if (entries.length > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceOver = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.all(entries.map((e) => e.finished)), graceOver]);
      clearTimeout(timer);
    }
    return this.live.size;
  }

  /** cancels every run and waits (at most `waitMs`) for them to end */
  async stopAll(waitMs: number): Promise<void> {
    this.closing = true;
    const entries = [...this.live];
    for (const e of entries) e.ctrl.abort();
    await Promise.race([Promise.all(entries.map((e) => e.finished)), Bun.sleep(waitMs)]);
  }
}

/** the runs of a daemon or an `mcpx serve`, bounded by its daemon.maxRuns */
export function runsFor(session: Session): Runs {
  const max = session.get("daemon.maxRuns");
  if (max < 0) throw new SettingsError(`daemon.maxRuns ${max}: give the most script runs to run at once (> 0), or 0 for no limit`);
  return new Runs(max);
}
