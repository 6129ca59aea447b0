// Appending to the audit log: each record one whole line, written with one append (O_APPEND), so
// several mcpx processes (a daemon, mcpx serve, CLI runs) may append to the same file at once
// without tearing each other's lines. The file is 0600 in a 0700 folder; past audit.maxSize it is
// rotated: audit.jsonl becomes audit.1.jsonl, audit.1 becomes audit.2, …, and the oldest beyond
// audit.keep is removed.

import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
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

/** how many lines go by between two looks at the live file's name (another process may have rotated it) */
const RECHECK_EVERY = 64;

/** the live file as this process has it open: kept open, so a line is one write, not an open, a stat and a close */
interface Open {
  path: string;
  fd: number;
  ino: number;
  /** the file's size as this process last knew it, plus what it wrote since */
  size: number;
  sinceCheck: number;
}
let open: Open | undefined;

function openLive(path: string, dir: string): Open {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  const st = fstatSync(fd);
  // the mode is applied at creation, through the umask: said again, so a loose umask cannot widen it
  if (st.size === 0) fchmodSync(fd, 0o600);
  return { path, fd, ino: st.ino, size: st.size, sinceCheck: 0 };
}

function closeLive(): void {
  if (open) closeSync(open.fd);
  open = undefined;
}

/**
 * Appends `line` (one JSON record, no newline) to the live file, rotating first when it would grow
 * past maxBytes. A file that holds nothing yet is never rotated, so one line larger than maxBytes is
 * still written. The file stays open between lines; its name is looked at again every few lines and
 * before a rotation, so a file another process rotated away is let go (the lines written meanwhile
 * are in the rotated file, none lost). Two processes that rotate at the same moment may each shift
 * the files once: an older file then falls out a step early, and no line is lost or torn.
 */
export function appendAuditLine(opts: AuditFileOptions, line: string): void {
  const path = auditPath(opts.dir, 0);
  const text = Buffer.from(line + "\n");
  if (open && open.path !== path) closeLive();
  open ??= openLive(path, opts.dir);
  const over = opts.maxBytes > 0 && open.size > 0 && open.size + text.length > opts.maxBytes;
  if (over || ++open.sinceCheck >= RECHECK_EVERY) {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.ino !== open.ino) {
      closeLive();
      open = openLive(path, opts.dir);
    } else open.size = st.size;
    open.sinceCheck = 0;
    if (opts.maxBytes > 0 && open.size > 0 && open.size + text.length > opts.maxBytes) {
      closeLive();
      rotate(opts);
      open = openLive(path, opts.dir);
    }
  }
  writeSync(open.fd, text);
  open.size += text.length;
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
