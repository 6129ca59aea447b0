// Who starts a run's runtime before the run (ready-runtime.ts): the CLI one guess before it reads
// config (Bun), the daemon one runtime of each kind kept for its next run. Either hands a run the
// runtime it holds only when that runtime's shape is exactly the run's; otherwise it ends that one and
// starts the run's own. Only unsandboxed runtimes are started ahead: a sandboxed Deno's command line
// grants the run's own files and socket, so it cannot exist before its run.

import type { Kind, RuntimeShape } from "./kinds.ts";
import { discard, fits, startRuntime, type RuntimeSource, type StartedRuntime } from "./ready-runtime.ts";
import { trace } from "../util/trace.ts";
import { running } from "../process/proc-table.ts";

/** a started runtime that is still waiting for a run (not ended from outside), as far as Bun has seen */
const waiting = (r: StartedRuntime) => r.child.exitCode === null && r.child.signalCode === null;

/**
 * `have` when it was started in exactly the shape wanted and still waits; otherwise it is ended and
 * the run's own is started. `ended` settles once an ended one is reaped.
 */
function takeOrStart(have: StartedRuntime | undefined, want: RuntimeShape, how: string): { runtime: StartedRuntime; ended?: Promise<unknown> } {
  if (have && fits(have, want) && waiting(have)) {
    trace(`runtime taken (${how})`);
    return { runtime: have };
  }
  return { ended: have && discard(have), runtime: startRuntime(want) };
}

/** the CLI's guess, started before config is read: used by the one run if it fits, ended by close() if not taken */
export interface EarlyRuntime extends RuntimeSource {
  close(): Promise<void>;
  /** what the run turned out to want: a runtime of this kind started before it, or "none" (started with it); undefined: no run asked */
  wanted(): Kind | "none" | undefined;
}

export function startEarly(shape: () => RuntimeShape | undefined): EarlyRuntime {
  let early: StartedRuntime | undefined;
  try {
    const s = shape();
    early = s && startRuntime(s);
  } catch {
    // a shape that cannot be made (an unwritable cache) is the run's own error to report, not the guess's
  }
  let taken = false;
  let wanted: Kind | "none" | undefined;
  // the guess once ended (not taken): mcpx waits for it to be reaped before it exits, or it would be init's zombie
  let ended: Promise<unknown> | undefined;
  return {
    oneRun: true,
    async runtimeFor(want) {
      const r = taken ? undefined : early;
      taken = true;
      wanted = want.kind;
      const got = takeOrStart(r, want, "started early");
      ended = got.ended;
      return got.runtime;
    },
    startedWithRun() {
      wanted = "none";
    },
    wanted: () => wanted,
    async close() {
      if (!taken && early) ended = discard(early);
      taken = true;
      await ended;
    },
  };
}

/**
 * The daemon's: for each kind (Bun, Deno, Node), one runtime kept started in the shape of the last run of
 * that kind it served, so that the next run in that shape (the same cwd and environment) pays no
 * runtime start. It is replaced once the run that took it has been delivered (its runtime exited and
 * its last frame taken by its door: runDelivered), and ended by close() (daemon shutdown). Never in
 * the shape of a run that set variables of its own (--env): those end with their run.
 */
export class KeptRuntime implements RuntimeSource {
  private readonly ready = new Map<Kind, StartedRuntime>();
  /** the shapes whose runtime a run took and has ended, to be replaced once that run is delivered */
  private readonly due = new Map<Kind, RuntimeShape>();
  private closed = false;

  async runtimeFor(want: RuntimeShape, own: { env: boolean }): Promise<StartedRuntime> {
    const kept = this.ready.get(want.kind);
    this.ready.delete(want.kind);
    // A kept runtime waits for minutes, and may be killed from outside meanwhile: Bun sets exitCode
    // only once its loop has seen the exit, so a run could be handed to one killed a moment before.
    // /proc says at once (a killed child is a zombie until Bun reaps it). The CLI's early runtime,
    // just started, is not asked: that read would be on every exec's path for a case it never meets.
    const have = kept && running(kept.child.pid) ? kept : undefined;
    if (kept && !have) void discard(kept);
    // one ended here is reaped while the daemon goes on
    const { runtime: r } = takeOrStart(have, want, "kept started");
    // not replaced as the exit is seen: the new one's spawn and start-up (~10 ms of CPU, on two cores
    // beside the caller's) came before the run's last frames reached its caller
    if (!own.env) void r.child.exited.then(() => this.due.set(want.kind, want));
    return r;
  }

  runDelivered(): void {
    for (const [kind, shape] of this.due) {
      this.due.delete(kind);
      this.keep(shape);
    }
  }

  /** keeps one started in this shape now, before any run has asked (the daemon's first run) */
  prime(shape: RuntimeShape): void {
    this.keep(shape);
  }

  private keep(shape: RuntimeShape): void {
    const have = this.ready.get(shape.kind);
    if (this.closed || (have && fits(have, shape) && waiting(have))) return;
    // the one replaced is reaped while the daemon goes on
    if (have) void discard(have);
    this.ready.delete(shape.kind);
    try {
      this.ready.set(shape.kind, startRuntime(shape));
    } catch {
      // none kept (no processes left, say): the next run starts its own, and says why if it cannot
    }
  }

  /** ends the runtimes kept for a next run, none being started after this; settles once they are reaped */
  async close(): Promise<void> {
    this.closed = true;
    const ready = [...this.ready.values()];
    this.ready.clear();
    await Promise.all(ready.map(discard));
  }
}
