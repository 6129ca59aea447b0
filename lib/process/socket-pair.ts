// A connected unix socket pair for one end of a child's stdio, made with libc's socketpair, and its
// reading end read through Bun's socket API. Bun.spawn's own pipes are socket pairs too, but read
// through a ReadableStream: per chunk, two recvfrom that find nothing and two epoll_ctl to re-arm,
// where a Bun socket reads once per readable event (strace, docs/decisions/0011). Used for a stdio
// server's stdin and stdout (lib/mcp/stdio-sockets.ts) and a script runtime's fd 1 (lib/exec).
// The child sees a unix stream socket either way.

import type { Socket } from "bun";
import { openedLibc } from "./libc.ts";

const AF_UNIX = 1;
const SOCK_STREAM = 1;
/** Linux's value: mcpx's ends must not leak into other processes it starts (a script, a hook) */
const SOCK_CLOEXEC = 0o2000000;

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
  return openedLibc()?.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) === 0 ? { ours: sv[0]!, theirs: sv[1]! } : undefined;
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
