// A V8 runtime's memory bound beside its heap flag: RLIMIT_DATA, set on the process from outside
// (prlimit) just after it is spawned. It counts every private writable mapping, so it bounds what V8's
// heap flag does not (typed arrays, Buffers: "external" memory); past it V8 ends the process out of
// memory. The huge PROT_NONE reservations V8 makes at start are not counted, which is why RLIMIT_AS
// cannot be used. Not for the embedded Bun: its JavaScriptCore has no heap flag, and under a data limit
// set this way it aborts at start at random (measured: 1 run in 3 with 768 MiB, none with 416 MiB), so a
// Bun run has no memory bound (docs/security.md).

import { loadLibc } from "./libc.ts";

/** RLIMIT_DATA in <sys/resource.h>, the same on every Linux architecture */
const RLIMIT_DATA = 2;

/**
 * What a V8 runtime needs beyond the script's heap: its own code, data and start-up (Deno 2 fails to
 * reserve its code range under ~560 MiB, measured with ulimit -d; Node starts under 400 MiB). Raise it
 * if a runtime grows; lowering it makes runs abort before the script starts.
 */
const RUNTIME_DATA_MB = 768;

/** the data limit of a V8 runtime whose heap limit is heapMb, in MiB */
export function dataLimitMb(heapMb: number): number {
  return heapMb + RUNTIME_DATA_MB;
}

/** bounds pid's data at dataMb MiB; false where it cannot be set (no libc, not Linux) */
export function limitData(pid: number, dataMb: number): boolean {
  const libc = loadLibc();
  if (!libc) return false;
  const bytes = BigInt(dataMb) * 1024n * 1024n;
  return libc.prlimit(pid, RLIMIT_DATA, new BigUint64Array([bytes, bytes]), null) === 0;
}
