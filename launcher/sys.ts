// The three things the in-script runtime needs from its host runtime, done the cheapest way each
// runtime offers: an ordered synchronous write to fd 1, console-style formatting, and a unix-socket
// connection, and taking the run the host hands over. On Bun, each `node:` module a script's runtime
// loads adds visibly to its start-up (decision 0011), so Bun uses its own APIs (sys-bun.ts); Deno
// uses Deno.* (sys-deno.ts); Node loads node: modules (sys-node.ts). This file holds what they share.

import { g } from "./globals.ts";

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

/** writes every byte to a descriptor before returning, however full its pipe is */
export type FdWrite = (fd: number, bytes: Uint8Array) => void;

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
export function lineSplitter(onLine: (line: string) => void): (chunk: string) => void {
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

export const isBrokenPipe = (err: unknown) => {
  const e = err as { code?: string; name?: string };
  return e?.code === "EPIPE" || e?.name === "BrokenPipe";
};
