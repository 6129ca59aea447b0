// The daemon's runs in flight: each has its own AbortController (fed by the client's disconnect and
// by shutdown), and shutdown waits for every one to have ended its process group.

export interface RunHandle {
  readonly signal: AbortSignal;
  abort(): void;
  /** the run's frame stream has ended: its process group is gone */
  done(): void;
}

export class Runs {
  private readonly live = new Set<{ ctrl: AbortController; finished: Promise<void> }>();
  private count = 0;
  /** once stopAll has begun, a run that starts is cancelled at once (the daemon is going away) */
  private closing = false;

  get active(): number {
    return this.live.size;
  }

  get total(): number {
    return this.count;
  }

  /** a new run, cancelled when `signal` (the request's) aborts */
  start(signal?: AbortSignal): RunHandle {
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
        if (this.live.delete(entry)) resolve();
      },
    };
  }

  /** cancels every run and waits (at most `waitMs`) for them to end */
  async stopAll(waitMs: number): Promise<void> {
    this.closing = true;
    const entries = [...this.live];
    for (const e of entries) e.ctrl.abort();
    await Promise.race([Promise.all(entries.map((e) => e.finished)), Bun.sleep(waitMs)]);
  }
}
