// Making the mcpx host a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): a process that a
// run's script started and then left (setsid, spawn(..., {detached: true}), a double fork) is
// reparented to mcpx, not to init, so mcpx can still find it under itself and end it with its run.
// Adopted processes are mcpx's children, so mcpx also reaps them (waitpid on their pid only: a
// waitpid(-1) would steal the exit status of a child Bun spawned and is waiting for).

import { loadLibc } from "./libc.ts";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

let subreaper: boolean | undefined;

/** makes this process a child subreaper, once; true when it is one (Linux), false elsewhere */
export function becomeSubreaper(): boolean {
  if (subreaper !== undefined) return subreaper;
  const c = loadLibc();
  subreaper = c !== undefined && c.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  return subreaper;
}

/** collects the exit status of an adopted child that has ended; true when it was reaped (or is not our child) */
export function reapAdopted(pid: number): boolean {
  const c = loadLibc();
  if (!c) return true;
  const r = c.waitpid(pid, null, WNOHANG);
  return r !== 0; // 0: still running; pid: reaped; -1: not our child (ECHILD) or gone
}
