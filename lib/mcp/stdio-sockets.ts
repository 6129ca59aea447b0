// A stdio server's stdin and stdout as unix socket pairs that mcpx makes itself, read and written
// through Bun's socket API, instead of the pipes Bun.spawn makes (which are socket pairs too, read
// through a ReadableStream and written through a FileSink). Per tools/call, the stream cost two
// recvfrom that found nothing and two epoll_ctl to re-arm, and the FileSink an epoll_ctl for
// EPOLLOUT and a wake-up of the event loop for it before each write; a Bun socket reads once per
// readable event and writes at once (strace, 2,000 calls; docs/decisions/0011). The server sees what
// it saw before: a unix stream socket on fd 0 and another on fd 1.

import type { Socket } from "bun";
import { openedLibc } from "../process/libc.ts";
import { SocketWriteQueue } from "../util/socket-write-queue.ts";

const AF_UNIX = 1;
const SOCK_STREAM = 1;
/** Linux's value: mcpx's ends must not leak into other processes it starts (a script, a hook) */
const SOCK_CLOEXEC = 0o2000000;

/** one connected pair: mcpx keeps `ours`, the server gets `theirs` */
interface Pair {
  ours: number;
  theirs: number;
}

export interface StdioPairs {
  stdin: Pair;
  stdout: Pair;
}

function pair(): Pair | undefined {
  const sv = new Int32Array(2);
  return openedLibc()?.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) === 0 ? { ours: sv[0]!, theirs: sv[1]! } : undefined;
}

/**
 * A pair for stdin and one for stdout, or undefined where libc is not open: then Bun's pipes. libc is
 * open wherever a script runs (its runtime's lineage opens it, before any call: lib/process/lineage.ts),
 * and it is not opened for this alone: a one-shot `mcpx call`, which runs no script, would start its
 * server 1.5–4 ms later for it (bun:ffi and a dlopen, measured with MCPX_TRACE=1), for a single call.
 * Not Linux, or no FFI: never open, always the pipes.
 */
export function stdioPairs(): StdioPairs | undefined {
  const stdin = pair();
  const stdout = stdin && pair();
  if (stdin && stdout) return { stdin, stdout };
  if (stdin) closeFds(stdin.ours, stdin.theirs);
  return undefined;
}

export function closeFds(...fds: number[]): void {
  const libc = openedLibc();
  for (const fd of fds) libc?.close(fd);
}

/** writes lines to the server's stdin */
export interface StdinWriter {
  /** throws Error("Connection closed") once the server's end is gone; a promise while the line waits to be flushed (a pipe) */
  write(text: string): Promise<void> | undefined;
  end(): void;
}

/** the server's stdin, on mcpx's end of its pair: what the socket does not take at once is sent on drain */
export async function stdinSocket(fd: number): Promise<StdinWriter> {
  let closed = false;
  let queue: SocketWriteQueue | undefined;
  const socket: Socket = await Bun.connect({
    fd,
    socket: {
      data() {}, // a server has nothing to say on its stdin
      drain: () => queue?.drain(),
      close: () => {
        closed = true;
      },
      error: () => {
        closed = true;
      },
    },
  } as never);
  queue = new SocketWriteQueue(socket);
  return {
    write(text) {
      // the SDK's words for a connection that is gone, as the pipe's EPIPE was told
      if (closed || !queue!.write(text)) throw new Error("Connection closed");
      return undefined;
    },
    end: () => socket.end(),
  };
}

/**
 * Reads the server's stdout, on mcpx's end of its pair, until the server closes it; `chunk` is told
 * each piece (false from it: stop reading). `ended` settles when the socket is closed.
 */
export async function readStdoutSocket(fd: number, chunk: (bytes: Uint8Array) => boolean, onError: (err: Error) => void): Promise<{ ended: Promise<void> }> {
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  await Bun.connect({
    fd,
    socket: {
      data: (s: Socket, bytes: Uint8Array) => {
        if (!chunk(bytes)) s.end();
      },
      close: () => done(),
      error: (_s: Socket, err: Error) => onError(err),
    },
  } as never);
  return { ended };
}
