// Ending a set of processes that do not share a group of their own (a lineage's members, a server
// and what it started): optionally a wait for them to go by themselves, then SIGTERM, then SIGKILL
// after the kill grace, and a bounded wait until they are gone. Identity is pid + start time, so a
// pid that was reused meanwhile is never signalled.

import { GONE_POLL_MS, KILL_GRACE_MS } from "./group.ts";
import { HAS_PROC, readEntry, readSubtree } from "./proc-table.ts";
import { reapAdopted } from "./subreaper.ts";

export interface Proc {
  pid: number;
  /** its start time from /proc; undefined where there is no /proc */
  start?: number;
  /** true when, should it become our child, it was adopted (not spawned by Bun): we may reap it */
  adopted: boolean;
}

/** pid and every process descended from it now, the root not adopted (Bun spawned it), the rest adopted if ever they are ours */
export function processTree(pid: number): Proc[] {
  const below = readSubtree(pid);
  return [{ pid, start: readEntry(pid)?.start, adopted: false }, ...[...below.values()].map((e) => ({ pid: e.pid, start: e.start, adopted: true }))];
}

/**
 * still there: same pid and start time, and not a zombie that is gone for good. A zombie is ours to
 * reap when it was adopted (and Bun's when it spawned it). One whose parent still lives is not gone
 * yet: that parent may reap it, or die, and then it is reparented to this host (a subreaper), so it
 * is waited for and reaped here; counted gone then, it would be left to init when mcpx exits.
 */
function isRunning(p: Proc): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(p.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const e = readEntry(p.pid);
  if (!e || (p.start !== undefined && e.start !== p.start)) return false;
  if (e.state === "Z") {
    if (e.ppid === process.pid) {
      if (p.adopted) reapAdopted(p.pid);
      return false;
    }
    // init's (no subreaper here) is out of reach; any other parent's will come to us or be reaped
    return e.ppid !== 1;
  }
  return true;
}

/**
 * Looks after 1 ms, then twice as long each time up to GONE_POLL_MS: a server that exits a few ms
 * after its stdin closed is seen gone then, not at the first 25 ms tick (a one-shot `mcpx call`
 * waited that long for every server it started).
 */
async function allGone(procs: Proc[], withinMs: number): Promise<boolean> {
  const started = performance.now();
  for (let pause = 1; ; pause = Math.min(pause * 2, GONE_POLL_MS)) {
    if (!procs.some(isRunning)) return true;
    const waited = performance.now() - started;
    if (waited >= withinMs) return false;
    await Bun.sleep(Math.min(pause, withinMs - waited));
  }
}

function signal(procs: Proc[], sig: NodeJS.Signals): void {
  for (const p of procs.filter(isRunning)) {
    try {
      process.kill(p.pid, sig);
    } catch {
      // gone in the meantime
    }
  }
}

/**
 * How long a stdio server may take to exit by itself once its stdin is closed (the MCP way to ask),
 * before its process tree gets SIGTERM, then SIGKILL after the kill grace. It covers a server that
 * flushes state on exit, and is what a server that ignores EOF costs each close. Change with
 * docs/decisions/0006.
 */
const SERVER_EOF_GRACE_MS = 1000;

/**
 * The one schedule that ends a stdio server, whoever closes it: its process tree read while it is
 * still its children's parent (`npx` → `node`), its stdin closed, then endProcesses with the EOF grace.
 */
export async function endServer(pid: number, closeStdin: () => void): Promise<void> {
  const tree = processTree(pid);
  closeStdin();
  await endProcesses(tree, SERVER_EOF_GRACE_MS);
}

/** @param politeMs how long they may take to go by themselves (after their stdin closed, say) before SIGTERM */
export async function endProcesses(procs: Proc[], politeMs = 0): Promise<void> {
  if (await allGone(procs, politeMs)) return;
  signal(procs, "SIGTERM");
  if (await allGone(procs, KILL_GRACE_MS)) return;
  signal(procs, "SIGKILL");
  await allGone(procs, KILL_GRACE_MS);
}
