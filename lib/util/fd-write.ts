// Synchronous writes to the terminal's fds, so stdout and stderr keep the order frames arrived in
// even when both are one pipe (2>&1), and nothing is lost when the process exits right after.

import { writeSync } from "node:fs";

const enc = new TextEncoder();

/** a transient line on the terminal (lib/render/status-line.ts): taken down around every write, so output never lands inside it */
export interface TransientLine {
  hide(): void;
  show(): void;
}
let transient: TransientLine | undefined;

/** sets (or with undefined, removes) the transient line every write steps around */
export function setTransientLine(line: TransientLine | undefined): void {
  transient = line;
}

function writeFd(fd: 1 | 2, text: string | Uint8Array): void {
  if (transient) {
    const line = transient;
    transient = undefined;
    line.hide();
    try {
      writeFd(fd, text);
    } finally {
      transient = line;
      line.show();
    }
    return;
  }
  let buf = typeof text === "string" ? enc.encode(text) : text;
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EPIPE") return; // the reader went away (| head): nothing left to tell it
      if (code !== "EAGAIN") throw err;
    }
  }
}

export const out = (text: string | Uint8Array) => writeFd(1, text);
export const err = (text: string) => writeFd(2, text);
