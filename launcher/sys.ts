// The three things the in-script runtime needs from its host runtime, done the cheapest way each
// runtime offers: an ordered synchronous write to fd 1, console-style formatting, and a unix-socket
// connection. On Bun, `node:` modules cost 8–15 ms of start-up each (measured: an empty script 21 ms,
// importing node:net 38 ms), so Bun uses its own APIs; Deno uses Deno.*; Node loads node: modules.

export interface Conn {
  write(text: string): void;
  end(): void;
  ref(): void;
  unref(): void;
}

export interface Sys {
  /** writes text to fd 1, in order with every other write made through this function */
  write(text: string): void;
  /** util.format semantics: %s %d %i %f %j %o %O %c %%, then the rest inspected */
  format(args: unknown[]): string;
  connect(path: string, onLine: (line: string) => void, onError: (err: unknown) => void): Promise<Conn>;
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

/** splits a byte stream into lines for onLine */
function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
  let buf = "";
  return (chunk) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      onLine(line);
    }
  };
}

const g = globalThis as Record<string, any>;

function bunSys(): Sys {
  const Bun = g.Bun;
  const out = Bun.stdout.writer();
  return {
    write(text) {
      out.write(text);
      out.flush();
    },
    format: (args) => formatWith((v) => Bun.inspect(v, { colors: false }), args),
    async connect(path, onLine, onError) {
      const feed = lineSplitter(onLine);
      const decoder = new TextDecoder();
      const s = await Bun.connect({
        unix: path,
        socket: {
          data: (_s: unknown, d: Uint8Array) => feed(decoder.decode(d, { stream: true })),
          error: (_s: unknown, e: unknown) => onError(e),
          close: () => onError(new Error("closed")),
        },
      });
      return { write: (t) => void s.write(t), end: () => s.end(), ref: () => s.ref(), unref: () => s.unref() };
    },
  };
}

function denoSys(): Sys {
  const Deno = g.Deno;
  const enc = new TextEncoder();
  return {
    write(text) {
      let buf = enc.encode(text);
      while (buf.length > 0) buf = buf.subarray(Deno.stdout.writeSync(buf));
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
      return {
        write: (t) => void conn.write(enc.encode(t)).catch(onError),
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
  return {
    write(text) {
      let buf = enc.encode(text);
      while (buf.length > 0) {
        try {
          buf = buf.subarray(fs.writeSync(1, buf));
        } catch (err) {
          // a non-blocking pipe that is full: try again, the reader is the host
          if ((err as { code?: string }).code !== "EAGAIN") throw err;
        }
      }
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
  if (g.Bun) return bunSys();
  if (g.Deno) return denoSys();
  return nodeSys();
}
