// The few libc functions mcpx calls that Bun has no API for, through bun:ffi, opened once per process
// with all their symbols (each dlopen compiles its trampolines, so a second open pays that again): the subreaper's
// prctl and waitpid (subreaper.ts), socketpair, pipe2 and close for the descriptors mcpx makes
// for its children (fd-pairs.ts), and prlimit for a script runtime's memory (data-limit.ts). Linux
// only: undefined elsewhere, or where FFI or libc cannot be opened.

import { HAS_PROC } from "./proc-table.ts";

export interface Libc {
  prctl(option: number, arg2: number, arg3: number, arg4: number, arg5: number): number;
  waitpid(pid: number, status: null, options: number): number;
  /** fills sv (an Int32Array of 2) with a connected pair; 0 on success */
  socketpair(domain: number, type: number, protocol: number, sv: Int32Array): number;
  close(fd: number): number;
  /** fills fds (an Int32Array of 2) with a pipe's read and write ends; 0 on success */
  pipe2(fds: Int32Array, flags: number): number;
  /** sets (new_limit) and/or reads (old_limit) another process's limit: each a BigUint64Array of {cur, max}, or null */
  prlimit(pid: number, resource: number, newLimit: BigUint64Array | null, oldLimit: BigUint64Array | null): number;
}

let libc: Libc | undefined | null;

/** libc if this process has opened it already (a lineage did, for a script's runtime or a hook), without opening it */
export function openedLibc(): Libc | undefined {
  return libc ?? undefined;
}

export function loadLibc(): Libc | undefined {
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
      socketpair: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
      pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      prlimit: { args: [FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
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
    libc = null; // no FFI here
  }
  return libc ?? undefined;
}
