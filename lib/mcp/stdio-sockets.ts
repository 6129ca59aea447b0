// A stdio server's stdin and stdout as unix socket pairs that mcpx makes itself, read and written
// through Bun's socket API, instead of the pipes Bun.spawn makes (which are socket pairs too, read
// through a ReadableStream and written through a FileSink). Per tools/call, the stream cost two
// recvfrom that found nothing and two epoll_ctl to re-arm, and the FileSink an epoll_ctl for
// EPOLLOUT and a wake-up of the event loop for it before each write; a Bun socket reads once per
// readable event and writes at once (strace, 2,000 calls; docs/decisions/0011). The server sees what
// it saw before: a unix stream socket on fd 0 and another on fd 1.

import type { Socket } from "bun";
import { closeFds, socketPair, type Pair } from "../process/fd-pairs.ts";
import { SocketWriteQueue } from "../util/socket-write-queue.ts";

export interface StdioPairs {
  stdin: Pair;
  stdout: Pair;
}

/**
 * A pair for stdin and one for stdout, or undefined where libc is not open: then Bun's pipes. libc is
 * open wherever a script runs (its runtime's lineage opens it, before any call: lib/process/lineage.ts),
 * and it is not opened for this alone: a one-shot `mcpx call`, which runs no script, would start its
 * server later for it (bun:ffi and a dlopen, visible with MCPX_TRACE=1), for a single call.
 * Not Linux, or no FFI: never open, always the pipes.
 */
export function stdioPairs(): StdioPairs | undefined {
  const stdin = socketPair();
  const stdout = stdin && socketPair();
  if (stdin && stdout) return { stdin, stdout };
  if (stdin) closeFds(stdin.ours, stdin.theirs);
  return undefined;
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
