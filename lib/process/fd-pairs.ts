// Pairs of descriptors for a child, made with libc (Bun has no API for either): a connected unix
// socket pair for one end of its stdio, whose reading end is read through Bun's socket API, and a
// pipe. Bun.spawn's own pipes are socket pairs too, but read through a ReadableStream: per chunk,
// two recvfrom that find nothing and two epoll_ctl to re-arm, where a Bun socket reads once per
// readable event (strace, docs/decisions/0011). Socket pairs are used for a stdio server's stdin and
// stdout (lib/mcp/stdio-sockets.ts) and a script runtime's fd 1; a pipe for the handoff of a Deno
// started before its run, which opens its fd 3 as /dev/fd/3, as a socket cannot be (lib/runtime/ready-runtime.ts).
// The child sees a unix stream socket on its stdio either way.

import type { Socket } from "bun";
import { loadLibc, openedLibc } from "./libc.ts";

const AF_UNIX = 1;
const SOCK_STREAM = 1;
/** Linux's values (O_CLOEXEC is SOCK_CLOEXEC): mcpx's ends must not leak into other processes it starts (a script, a hook) */
const CLOEXEC = 0o2000000;
const O_NONBLOCK = 0o4000;

/** one connected pair: mcpx keeps `ours`, the child gets `theirs` */
export interface Pair {
  ours: number;
  theirs: number;
}

/**
 * A pair, or undefined where libc is not open: then Bun's pipes. libc is open wherever a script runs
 * (its runtime's lineage opens it before the runtime is spawned: lineage.ts), and it is not opened
 * for this alone (libc.ts says what that costs). Not Linux, or no FFI: never open.
 */
export function socketPair(): Pair | undefined {
  const sv = new Int32Array(2);
  return openedLibc()?.socketpair(AF_UNIX, SOCK_STREAM | CLOEXEC, 0, sv) === 0 ? { ours: sv[0]!, theirs: sv[1]! } : undefined;
}

/**
 * A pipe, both ends close-on-exec (so no other process mcpx starts holds the write end, and the
 * reader sees its end once mcpx closes it) and non-blocking. Opens libc if it is not open yet;
 * undefined where it cannot be opened (not Linux).
 */
export function pipePair(): { read: number; write: number } | undefined {
  const fds = new Int32Array(2);
  return loadLibc()?.pipe2(fds, CLOEXEC | O_NONBLOCK) === 0 ? { read: fds[0]!, write: fds[1]! } : undefined;
}

/** whether pipePair can make a pipe here */
export function canPipe(): boolean {
  return loadLibc() !== undefined;
}

export function closeFds(...fds: number[]): void {
  const libc = openedLibc();
  for (const fd of fds) libc?.close(fd);
}

/**
 * Reads mcpx's end of a pair until the child's side is closed (by every process holding it); `chunk`
 * is told each piece (false from it: stop reading). `ended` settles when the socket is closed, or
 * fails: an error is told to onError, and is the end of reading.
 */
export async function readSocket(fd: number, chunk: (bytes: Uint8Array) => boolean, onError: (err: Error) => void): Promise<{ ended: Promise<void> }> {
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  await Bun.connect({
    fd,
    socket: {
      data: (s: Socket, bytes: Uint8Array) => {
        if (!chunk(bytes)) s.end();
      },
      close: () => done(),
      error: (_s: Socket, err: Error) => {
        onError(err);
        done();
      },
    },
  } as never);
  return { ended };
}
