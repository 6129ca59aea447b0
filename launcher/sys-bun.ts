// The host runtime's services on Bun (sys.ts): its own APIs and libc through bun:ffi, because every
// `node:` module a script's runtime loads on Bun adds to its start-up (decision 0011).

import { g } from "./globals.ts";
import { hostGone, lineSplitter, formatWith, type FdWrite, type Sys } from "./sys.ts";
import { nodeDropHandoff, nodeFdWrite } from "./sys-node.ts";
import { HANDOFF_FD } from "./wire.ts";

/**
 * fd 1 and 2 on Bun. Bun's own writer (Bun.stdout.writer) sets the pipe non-blocking and finishes a write
 * to a full pipe later, so process.exit() right after a large print lost most of it. This writes
 * through write(2) until every byte is taken, waiting in poll(2) while the pipe is full, as Node's and
 * Deno's synchronous writes do. libc is reached through bun:ffi, which loads faster than node:fs would
 * for every run's start-up; where libc cannot be opened, node:fs does the job.
 */
async function bunFdWrite(libc: Libc | undefined): Promise<FdWrite> {
  const EINTR = 4;
  const EAGAIN = 11;
  const EPIPE = 32;
  const POLLOUT = 4;
  if (!libc) return nodeFdWrite(await import("node:fs"));
  const { ffi, symbols } = libc;
  const { write, poll, __errno_location } = symbols;
  const pollfd = new Int32Array([1, POLLOUT]); // struct pollfd { int fd; short events = POLLOUT; short revents; }
  return (fd, bytes) => {
    let at = 0;
    while (at < bytes.byteLength) {
      const n = Number(write(fd, ffi.ptr(bytes, at), bytes.byteLength - at));
      if (n >= 0) {
        at += n;
        continue;
      }
      const errno = ffi.read.i32(__errno_location()!, 0);
      if (errno === EAGAIN) {
        pollfd[0] = fd;
        poll(ffi.ptr(pollfd), 1, -1);
      } else if (errno === EPIPE) hostGone();
      else if (errno !== EINTR) throw new Error(`mcpx runtime: write to fd ${fd} failed (errno ${errno})`);
    }
  };
}

/** what Bun's FileSink offers, as Bun's WriteStream (process.stdout) and a script use it */
interface Sink {
  write(chunk: unknown): number;
  flush(): number;
  end(): number;
  start(): void;
  ref(): void;
  unref(): void;
  _getFd(): number;
}

/**
 * Every write a script makes to fd 1 or 2 on Bun finishes before it returns, whatever API made it
 * process.stdout and process.stderr are WriteStreams over a native FileSink that, like
 * Bun.stdout.writer(), finishes a write to a full pipe later and drops it at process.exit(): 5 MB
 * through process.stdout.write reached the host as 438,528 bytes, and its flush() is a Promise even on a
 * blocking descriptor. The streams themselves are left alone, because reading process.stdout, even its
 * property descriptor, builds the stream, a cost every run's start-up would pay. Instead the
 * FileSink they are built over is swapped for one that writes through writeFd: Bun's WriteStream asks
 * the global Bun.file(fd).writer() for it when the script first touches process.stdout, so a run that
 * never does pays two property writes. Bun.write to stdout or stderr with text or bytes goes the same way.
 */
function syncBunStdio(writeFd: FdWrite, encode: (s: string) => Uint8Array): void {
  const Bun = g.Bun;
  const bytes = (chunk: unknown): Uint8Array =>
    typeof chunk === "string"
      ? encode(chunk)
      : ArrayBuffer.isView(chunk)
        ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
        : chunk instanceof ArrayBuffer || chunk instanceof SharedArrayBuffer
          ? new Uint8Array(chunk)
          : encode(String(chunk));
  const sink = (fd: number): Sink => ({
    write(chunk) {
      const b = bytes(chunk);
      writeFd(fd, b);
      return b.byteLength;
    },
    // nothing is ever held back, and fd 1 is the run's ordered stream: ending a writer never closes it
    flush: () => 0,
    end: () => 0,
    start() {},
    ref() {},
    unref() {},
    _getFd: () => fd,
  });
  const stdio = new WeakMap<object, number>();
  const syncWriter = (file: Record<string, unknown>, fd: number) => {
    file.writer = () => sink(fd);
    stdio.set(file, fd);
    return file;
  };
  syncWriter(Bun.stdout, 1);
  syncWriter(Bun.stderr, 2);
  const file = Bun.file;
  Bun.file = function (this: unknown, ...args: unknown[]) {
    const f = file.apply(this, args);
    return args[0] === 1 || args[0] === 2 ? syncWriter(f, args[0]) : f;
  };
  const write = Bun.write;
  Bun.write = function (this: unknown, ...args: unknown[]) {
    const [dest, data] = args;
    const fd = dest === 1 || dest === 2 ? dest : typeof dest === "object" && dest !== null ? stdio.get(dest) : undefined;
    const text = typeof data === "string" || ArrayBuffer.isView(data) || data instanceof ArrayBuffer;
    if (fd === undefined || !text || args.length > 2) return write.apply(this, args);
    const b = bytes(data);
    writeFd(fd, b);
    return Promise.resolve(b.byteLength);
  };
}

/** libc through bun:ffi (it loads faster than node:fs, which every run's start-up would pay for); undefined where it cannot be opened */
async function bunLibc() {
  try {
    if (g.process.platform !== "linux") throw new Error("libc symbols below are Linux's");
    const ffi = await import("bun:ffi");
    const { i32, i64, u64, ptr: pointer } = ffi.FFIType;
    const open = (name: string) =>
      ffi.dlopen(name, {
        write: { args: [i32, pointer, u64], returns: i64 },
        poll: { args: [pointer, u64, i32], returns: i32 },
        ftruncate: { args: [i32, i64], returns: i32 },
        close: { args: [i32], returns: i32 },
        __errno_location: { args: [], returns: pointer },
      });
    for (const name of ["libc.so.6", "libc.so", `libc.musl-${g.process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`]) {
      try {
        return { ffi, symbols: open(name).symbols };
      } catch {
        // the next name: glibc, then musl
      }
    }
  } catch {
    // not Linux, or no FFI: node:fs does the job
  }
  return undefined;
}
type Libc = NonNullable<Awaited<ReturnType<typeof bunLibc>>>;

export async function bunSys(): Promise<Sys> {
  const Bun = g.Bun;
  const enc = new TextEncoder();
  const encode = enc.encode.bind(enc);
  const libc = await bunLibc();
  const writeFd = await bunFdWrite(libc);
  syncBunStdio(writeFd, encode);
  return {
    write: (text) => writeFd(1, typeof text === "string" ? encode(text) : text),
    async takeHandoff() {
      const text = await Bun.file(HANDOFF_FD).text();
      if (libc) {
        libc.symbols.ftruncate(HANDOFF_FD, 0); // fails (EINVAL) on a socket pair, which reading has emptied
        libc.symbols.close(HANDOFF_FD);
      } else nodeDropHandoff(await import("node:fs"));
      return text;
    },
    format: (args) => formatWith((v) => Bun.inspect(v, { colors: false }), args),
    async connect(path, onLine, onError) {
      const feed = lineSplitter(onLine);
      const decoder = new TextDecoder();
      // Bun sockets do not buffer: what write() does not take waits here until drain
      let pending = new Uint8Array(0);
      const flush = (s: { write(b: Uint8Array): number }) => {
        if (pending.byteLength === 0) return;
        const n = s.write(pending);
        pending = n < 0 ? new Uint8Array(0) : pending.subarray(n);
      };
      const s = await Bun.connect({
        unix: path,
        socket: {
          data: (_s: unknown, d: Uint8Array) => feed(decoder.decode(d, { stream: true })),
          drain: flush,
          error: (_s: unknown, e: unknown) => onError(e),
          close: () => onError(new Error("closed")),
        },
      });
      return {
        write: (t) => {
          const b = encode(t);
          const next = new Uint8Array(pending.byteLength + b.byteLength);
          next.set(pending);
          next.set(b, pending.byteLength);
          pending = next;
          flush(s);
        },
        end: () => s.end(),
        ref: () => s.ref(),
        unref: () => s.unref(),
      };
    },
  };
}
