// Appending to the audit log: each record one whole line, written with one append (O_APPEND), so
// several mcpx processes (a daemon, mcpx serve, CLI runs) may append to the same file at once
// without tearing each other's lines. The file is 0600 in a 0700 folder; past audit.maxSize it is
// rotated: audit.jsonl becomes audit.1.jsonl, audit.1 becomes audit.2, …, and the oldest beyond
// audit.keep is removed.

import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { AUDIT_FILE } from "./records.ts";

/** the path of the audit log's n-th file: 0 the live one, 1 the newest rotated one */
export function auditPath(dir: string, n: number): string {
  return n === 0 ? join(dir, AUDIT_FILE) : join(dir, AUDIT_FILE.replace(/\.jsonl$/, `.${n}.jsonl`));
}

export interface AuditFileOptions {
  dir: string;
  /** rotate before a line would take the live file past this many bytes; 0: never rotate */
  maxBytes: number;
  /** how many rotated files are kept */
  keep: number;
}

/**
 * Appends `line` (one JSON record, no newline) to the live file, rotating first when it would grow
 * past maxBytes. A file that holds nothing yet is never rotated, so one line larger than maxBytes is
 * still written. Two processes that rotate at the same moment may each shift the files once: an older
 * file then falls out a step early, and no line is lost or torn.
 */
export function appendAuditLine(opts: AuditFileOptions, line: string): void {
  const path = auditPath(opts.dir, 0);
  const text = line + "\n";
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  let fresh = size === undefined;
  if (fresh) mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  else if (opts.maxBytes > 0 && size! > 0 && size! + Buffer.byteLength(text) > opts.maxBytes) {
    rotate(opts);
    fresh = true;
  }
  appendFileSync(path, text, { mode: 0o600 });
  // the mode is applied at creation, through the umask: said again, so a loose umask cannot widen it
  if (fresh) chmodSync(path, 0o600);
}

/** shifts the files one step older, removing what falls past `keep` (keep 0: the live file itself) */
function rotate(opts: AuditFileOptions): void {
  rmSync(auditPath(opts.dir, opts.keep), { force: true });
  for (let n = opts.keep - 1; n >= 0; n--) {
    try {
      renameSync(auditPath(opts.dir, n), auditPath(opts.dir, n + 1));
    } catch (e) {
      // a file not there (fewer rotations so far, or another process just moved it) is nothing to shift
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
}
