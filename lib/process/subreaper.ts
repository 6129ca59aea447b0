// Making the mcpx host a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): a process that a
// run's script started and then left (setsid, spawn(..., {detached: true}), a double fork) is
// reparented to mcpx, not to init, so mcpx can still find it under itself and end it with its run.
// Adopted processes are mcpx's children, so mcpx also reaps them (waitpid on their pid only: a
// waitpid(-1) would steal the exit status of a child Bun spawned and is waiting for).

import { HAS_PROC } from "./proc-table.ts";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

interface Libc {
  prctl(option: number, arg2: number, arg3: number, arg4: number, arg5: number): number;
  waitpid(pid: number, status: null, options: number): number;
}

let libc: Libc | undefined | null;

function loadLibc(): Libc | undefined {
  if (libc !== undefined) return libc ?? undefined;
  libc = null;
  if (process.platform !== "linux" || !HAS_PROC) return undefined;
  try {
    // bun:ffi works inside the compiled binary (measured, Bun 1.4.5); libc.so.6 is glibc's soname,
    // musl's is libc.so, tried second
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const symbols = {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
      waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    } as const;
    for (const name of ["libc.so.6", "libc.so"]) {
      try {
        libc = dlopen(name, symbols).symbols as unknown as Libc;
        break;
      } catch {
        // next name
      }
    }
  } catch {
    libc = null; // no FFI here: process groups only
  }
  return libc ?? undefined;
}

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
