// A script runtime started before its run. Its entry (launcher-files.ts readyEntry) loads the runtime
// bundle, which blocks reading the run from fd 3, which the host writes once it knows the run; the
// handoff then names the run's launcher, which the entry imports. Every unsandboxed run (Bun, Node,
// and Deno on Linux) starts this way, so a run that finds a runtime already started for it (the CLI starts one before it reads config, the
// daemon keeps one of each kind for its next run) takes exactly the path a fresh start takes, minus the wait.
// A process fixes at its start what nobody can change later: its argv, environment, working
// directory and what its stdin is (and Bun reads bunfig.toml, Deno deno.json, from that directory as it starts). So a
// started runtime serves a run only when all of these are exactly what the run would have started
// it with (its shape); any other run ends it, unused, and starts its own. Nothing of the run is in
// its argv or environment (decision 0007): the run's secrets only ever travel on fd 3, a socket pair
// (Bun.spawn's extra "pipe") or a pipe, as its kind says (kinds.ts handoff).

import { closeSync, writeSync } from "node:fs";
import type { Subprocess } from "bun";
import type { Handoff } from "../../launcher/wire.ts";
import { Lineage } from "../process/lineage.ts";
import { dataLimitMb, limitData } from "../process/data-limit.ts";
import { KINDS, type Kind, type RuntimeShape } from "./kinds.ts";
import { closeFds, pipePair, socketPair } from "../process/fd-pairs.ts";
import { stableStringify } from "../util/stable-json.ts";
import { trace } from "../util/trace.ts";

/** the descriptor the run is handed over on (launcher/wire.ts HANDOFF_FD; the host never imports the wire's code) */
const HANDOFF_FD = 3;

export interface StartedRuntime {
  key: string;
  kind: Kind;
  /** as SpawnedRuntime.stdout */
  stdout?: number;
  child: Subprocess<"inherit" | "pipe", "pipe", "pipe">;
  lineage: Lineage;
  /** the host's end of the handoff: a socket pair for Bun and Node, a pipe's write end for Deno */
  handoff: number;
}

/** where a run gets its started runtime: one started earlier for exactly its shape, or a new one */
export interface RuntimeSource {
  /**
   * @param own the caller set variables for this run (ExecOptions.env, --env): they are the run's,
   *   so no runtime is started in this shape for a later run, where they would outlive it
   */
  runtimeFor(shape: RuntimeShape, own: { env: boolean }): Promise<StartedRuntime>;
  /** told instead when the run starts its runtime with its run (a sandboxed run): a source that guesses learns from it */
  startedWithRun?(): void;
  /** the process runs this one run and ends (the CLI): nothing is made ahead for a next run (quickjs-engine.ts) */
  oneRun?: boolean;
  /**
   * told once a run's last frame has been taken by its door (execute.ts): what the run used up is
   * made again now, and not before, so that making it is not on the run's way out
   */
  runDelivered?(): void;
}

/** a run with nothing started for it starts its own */
export const FRESH: RuntimeSource = { runtimeFor: async (shape) => startRuntime(shape) };

function shapeKey(s: RuntimeShape): string {
  return stableStringify([s.kind, s.argv, s.cwd, s.stdin, s.env, s.heapMb]);
}

/** starts a runtime that waits for its run; it is in a process group of its own, as every run's runtime */
export function startRuntime(shape: RuntimeShape): StartedRuntime {
  // the lineage marker is this runtime's own id: the run it will serve is not known yet
  const lineage = new Lineage(crypto.randomUUID());
  // a kind that opens its fd 3 by path (Deno) gets a pipe, the others a socket pair (kinds.ts handoff)
  const wantsPipe = KINDS[shape.kind].handoff === "pipe";
  const pipe = wantsPipe ? pipePair() : undefined;
  if (wantsPipe && !pipe) throw new Error(`mcpx: no pipe for a ${shape.kind} runtime's handoff here (libc could not be opened)`);
  let spawned: SpawnedRuntime;
  try {
    spawned = spawnRuntime({
      cmd: shape.argv,
      cwd: shape.cwd,
      env: { ...shape.env, ...lineage.env() },
      stdin: shape.stdin,
      fd3: pipe ? pipe.read : "pipe",
      dataMb: shape.heapMb && KINDS[shape.kind].dataLimit ? dataLimitMb(shape.heapMb) : undefined,
    });
  } catch (err) {
    if (pipe) closeSync(pipe.write);
    throw err;
  } finally {
    // the read end is the runtime's alone now (its fd 3); a copy kept here would leak one descriptor per run
    if (pipe) closeSync(pipe.read);
  }
  const { child, stdout } = spawned;
  return { key: shapeKey(shape), kind: shape.kind, stdout, child, lineage, handoff: pipe ? pipe.write : (child.stdio[HANDOFF_FD] as unknown as number) };
}

export interface SpawnedRuntime {
  child: StartedRuntime["child"];
  /** mcpx's end of the runtime's fd 1 when it is a socket pair (read it with readSocket); undefined: child.stdout */
  stdout?: number;
}

/**
 * Spawns a script runtime, started before its run or with it, in a process group of its own (a timeout
 * or cancel ends everything it started): its fd 1 a socket pair mcpx reads through Bun's socket API
 * where libc is open (lib/process/fd-pairs.ts), fd 3 the handoff as given.
 */
export function spawnRuntime(o: {
  cmd: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  stdin: "inherit" | "pipe";
  fd3: "pipe" | number;
  /** its data limit in MiB (absent: none), set before it can run any script */
  dataMb?: number;
}): SpawnedRuntime {
  const out = socketPair();
  const stdio: Array<"inherit" | "pipe" | number> = [o.stdin, out ? out.theirs : "pipe", "pipe"];
  stdio[HANDOFF_FD] = o.fd3;
  try {
    const child = Bun.spawn({
      cmd: o.cmd,
      cwd: o.cwd,
      env: o.env as Record<string, string>,
      stdio: stdio as ["inherit", "pipe", "pipe"],
      detached: true,
    }) as StartedRuntime["child"];
    trace("runtime spawned");
    // a runtime started before its run runs nothing of a script's until the handoff; one started with
    // its run (the sandbox) is still starting up: either way the limit is in force before the script
    if (o.dataMb) limitData(child.pid, o.dataMb);
    return { child, stdout: out?.ours };
  } catch (err) {
    if (out) closeFds(out.ours);
    throw err;
  } finally {
    // the runtime's end is its own now: one kept here would hold the socket open after it exited
    if (out) closeFds(out.theirs);
  }
}

/** true when this started runtime was started with exactly the shape given */
export function fits(r: StartedRuntime, shape: RuntimeShape): boolean {
  return r.key === shapeKey(shape);
}

/**
 * Hands the run over on fd 3's host end and closes it: the runtime reads to its end, then runs the launcher.
 * The host's end is non-blocking: a run larger than the socket's or pipe's buffer (long args) waits for the runtime to read.
 */
export async function handOver(r: StartedRuntime, handoff: Handoff): Promise<void> {
  const bytes = Buffer.from(JSON.stringify(handoff));
  try {
    for (let at = 0; at < bytes.byteLength; ) {
      try {
        at += writeSync(r.handoff, bytes, at);
      } catch (err) {
        if ((err as { code?: string }).code !== "EAGAIN") throw err;
        await Bun.sleep(1);
      }
    }
  } finally {
    closeSync(r.handoff);
  }
  r.lineage.track(r.child.pid);
}

/**
 * Ends a started runtime that will get no run. It has run nothing of a script's (it waits for the
 * handoff), so its group is killed at once. Settles once Bun has reaped it: a process that exits
 * before that leaves it a zombie for init, which a container's init may never reap.
 */
export function discard(r: StartedRuntime): Promise<unknown> {
  try {
    process.kill(-r.child.pid, "SIGKILL");
  } catch {
    // already gone
  }
  try {
    closeSync(r.handoff);
  } catch {
    // already closed
  }
  if (r.stdout !== undefined) closeFds(r.stdout);
  return r.child.exited;
}
