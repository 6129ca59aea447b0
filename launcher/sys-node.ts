// The host runtime's services on Node (sys.ts), through node: modules, loaded dynamically so that
// Bun and Deno never load them. Bun falls back to the descriptor helpers here where libc cannot be opened.

import { hostGone, isBrokenPipe, lineSplitter, type FdWrite, type Sys } from "./sys.ts";
import { HANDOFF_FD } from "./wire.ts";

/** empties and closes the handoff descriptor through node:fs */
export function nodeDropHandoff(fs: typeof import("node:fs")): void {
  // a socket pair (a runtime started before its run, decision 0012) is emptied by reading it, and cannot be truncated
  if (fs.fstatSync(HANDOFF_FD).isFile()) fs.ftruncateSync(HANDOFF_FD, 0);
  fs.closeSync(HANDOFF_FD);
}

/** a descriptor through node:fs: writeSync until every byte is taken, sleeping 1 ms at a time while the pipe is full */
export function nodeFdWrite(fs: typeof import("node:fs")): FdWrite {
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

export async function nodeSys(): Promise<Sys> {
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
