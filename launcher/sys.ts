// The three things the in-script runtime needs from its host runtime, done the cheapest way each
// runtime offers: an ordered synchronous write to fd 1, console-style formatting, and a unix-socket
// connection, and taking the run the host hands over. On Bun, each `node:` module a script's runtime
// loads adds visibly to its start-up (decision 0011), so Bun uses its own APIs; Deno uses Deno.*; Node
// loads node: modules.

import { HANDOFF_FD } from "./wire.ts";

export interface Conn {
  write(text: string): void;
  end(): void;
  ref(): void;
  unref(): void;
}

export interface Sys {
  /** writes to fd 1, in order with every other write made through this function; bytes as they are */
  write(text: string | Uint8Array): void;
  /** util.format semantics: %s %d %i %f %j %o %O %c %%, then the rest inspected */
  format(args: unknown[]): string;
  connect(path: string, onLine: (line: string) => void, onError: (err: unknown) => void): Promise<Conn>;
  /**
   * reads the run the host handed over on fd HANDOFF_FD, then empties and closes it, so that nothing
   * the script does afterwards (reading /proc/self/fd/3, a child inheriting it) finds the secrets
   */
  takeHandoff(): Promise<string>;
}

type Inspect = (v: unknown) => string;

/** Node's util.format, over a runtime's own inspect */
export function formatWith(inspect: Inspect, args: unknown[]): string {
  let i = 0;
  let head = "";
  if (typeof args[0] === "string") {
    i = 1;
    head = args[0].replace(/%[sdifjoOc%]/g, (m) => {
      if (m === "%%") return "%";
      if (i >= args.length) return m;
      const a = args[i++];
      switch (m) {
        case "%s":
          return typeof a === "string" ? a : typeof a === "bigint" ? `${a}n` : typeof a === "object" && a !== null ? inspect(a) : String(a);
        case "%d":
        case "%i":
          return typeof a === "bigint" ? `${a}n` : String(m === "%i" ? parseInt(String(a), 10) : Number(a));
        case "%f":
          return String(parseFloat(String(a)));
        case "%j":
          try {
            return JSON.stringify(a);
          } catch {
            return "[Circular]";
          }
        case "%c":
          return "";
        default:
          return inspect(a);
      }
    });
  }
  const rest = args.slice(i).map((a) => (typeof a === "string" ? a : inspect(a)));
  return [...(typeof args[0] === "string" ? [head] : []), ...rest].join(" ");
}

/**
 * splits a text stream into lines for onLine. Only the new chunk is searched for a newline, so an
 * answer of many MB arriving in 64 KB pieces costs one pass, not one pass per piece.
 */
function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let parts: string[] = [];
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf("\n", start); nl >= 0; nl = chunk.indexOf("\n", start)) {
      // most lines arrive whole, in one chunk: no list to join then
      let line = chunk.slice(start, nl);
      if (parts.length > 0) {
        parts.push(line);
        line = parts.join("");
        parts = [];
      }
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  };
}

/**
 * The host is gone (its pid is no longer our parent, or fd 1's reader closed): nothing this run does
 * can be seen or answered any more, so the launcher ends its whole process group (it leads it: the
 * host spawns it detached), itself included, instead of running on unseen. SIGKILL, not TERM: there
 * is no host left to report to or to wait out a grace period for.
 */
export function hostGone(): never {
  const p = g.process as { pid: number; kill(pid: number, sig: string): void; exit(code: number): never };
  try {
    p.kill(-p.pid, "SIGKILL");
  } catch {
    // not a group leader after all: at least this process goes
  }
  return p.exit(137);
}

const isBrokenPipe = (err: unknown) => {
  const e = err as { code?: string; name?: string };
  return e?.code === "EPIPE" || e?.name === "BrokenPipe";
};

// biome-ignore lint/suspicious/noExplicitAny: the runtime's globals (process, Bun, Deno) differ per runtime and are probed at run time
const g = globalThis as Record<string, any>;

/** writes every byte to a descriptor before returning, however full its pipe is */
type FdWrite = (fd: number, bytes: Uint8Array) => void;

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

/** empties and closes the handoff descriptor through node:fs */
function nodeDropHandoff(fs: typeof import("node:fs")): void {
  // a socket pair (a runtime started before its run, decision 0012) is emptied by reading it, and cannot be truncated
  if (fs.fstatSync(HANDOFF_FD).isFile()) fs.ftruncateSync(HANDOFF_FD, 0);
  fs.closeSync(HANDOFF_FD);
}

/** a descriptor through node:fs: writeSync until every byte is taken, sleeping 1 ms at a time while the pipe is full */
function nodeFdWrite(fs: typeof import("node:fs")): FdWrite {
  const writeSync = fs.writeSync;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  return (fd, bytes) => {
    let at = 0;
    while (at < bytes.byteLength) {
      try {
        at += writeSync(fd, bytes, at);
      } catch (err) {
        if (isBrokenPipe(err)) hostGone();
        // a non-blocking pipe that is full: the reader is the host, give it a moment
        if ((err as { code?: string }).code !== "EAGAIN") throw err;
        Atomics.wait(nap, 0, 0, 1);
      }
    }
  };
}

async function bunSys(): Promise<Sys> {
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

function denoSys(): Sys {
  const Deno = g.Deno;
  const enc = new TextEncoder();
  const encode = enc.encode.bind(enc);
  const writeSync = Deno.stdout.writeSync.bind(Deno.stdout);
  return {
    async takeHandoff() {
      // a sandboxed Deno may not open /dev/fd/N: it is given the file's path instead, which it may
      // only read; the host deletes it as soon as this launcher connects with the token inside
      const given = Deno.args[0] as string | undefined;
      if (given) return Deno.readTextFileSync(given);
      // Deno 2 cannot close a descriptor it did not open: the file is emptied instead, through a
      // second opening of the same (already deleted) file
      const path = `/dev/fd/${HANDOFF_FD}`;
      const text = Deno.readTextFileSync(path);
      Deno.openSync(path, { write: true, truncate: true }).close();
      return text;
    },
    write(text) {
      let buf = typeof text === "string" ? encode(text) : text;
      try {
        while (buf.length > 0) buf = buf.subarray(writeSync(buf));
      } catch (err) {
        if (isBrokenPipe(err)) hostGone();
        throw err;
      }
    },
    format: (args) => formatWith((v) => Deno.inspect(v, { colors: false }), args),
    async connect(path, onLine, onError) {
      const conn = await Deno.connect({ transport: "unix", path });
      const feed = lineSplitter(onLine);
      void (async () => {
        try {
          for await (const chunk of conn.readable.pipeThrough(new TextDecoderStream())) feed(chunk);
          onError(new Error("closed"));
        } catch (e) {
          onError(e);
        }
      })();
      // conn.write may take part of a buffer: writes are chained so each one finishes in order
      let writing: Promise<void> = Promise.resolve();
      const writeAll = async (b: Uint8Array) => {
        while (b.length > 0) b = b.subarray(await conn.write(b));
      };
      return {
        write: (t) => {
          const b = encode(t);
          writing = writing.then(() => writeAll(b)).catch(onError);
        },
        end: () => {
          try {
            conn.close();
          } catch {
            // already closed
          }
        },
        ref: () => conn.ref(),
        unref: () => conn.unref(),
      };
    },
  };
}

async function nodeSys(): Promise<Sys> {
  const fs = await import("node:fs");
  const net = await import("node:net");
  const util = await import("node:util");
  const enc = new TextEncoder();
  const encode = enc.encode.bind(enc);
  const writeFd = nodeFdWrite(fs);
  return {
    write: (text) => writeFd(1, typeof text === "string" ? encode(text) : text),
    async takeHandoff() {
      const text = fs.readFileSync(HANDOFF_FD, "utf8");
      nodeDropHandoff(fs);
      return text;
    },
    format: (args) => util.formatWithOptions({ colors: false }, ...args),
    connect(path, onLine, onError) {
      return new Promise((resolve, reject) => {
        const s = net.connect({ path }, () => resolve({ write: (t) => void s.write(t), end: () => s.end(), ref: () => s.ref(), unref: () => s.unref() }));
        s.setEncoding("utf8");
        s.on("data", lineSplitter(onLine));
        s.on("error", (e) => (s.connecting ? reject(e) : onError(e)));
      });
    },
  };
}

export async function detectSys(): Promise<Sys> {
  if (g.Bun) return await bunSys();
  if (g.Deno) return denoSys();
  return nodeSys();
}
