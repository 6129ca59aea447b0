// A lock file between mcpx processes: created exclusively (O_EXCL), holding the holder's pid. A lock
// whose holder is no longer running is stale and is taken over; waiting polls the file with a
// bounded backoff and gives up after a bound, with an error naming the file and the holder.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { McpxError } from "../../errors/mcpx-error.ts";

/**
 * How long a refresh or a login's save waits for another process's refresh of the same tokens: one
 * token request, which the SDK does not bound. Long enough for a slow authorization server; change
 * freely.
 */
export const TOKENS_LOCK_TIMEOUT_MS = 30_000;

/** first and longest pause between two looks at a held lock: a refresh is one HTTP round trip */
const POLL_FIRST_MS = 10;
const POLL_MAX_MS = 200;

export interface LockOptions {
  /** how long to wait for a holder before giving up */
  timeoutMs: number;
  /** called once, when the lock is found held by a running process (for a debug line) */
  onWait?(holder: number | undefined): void;
  /** what the lock guards, for the error: `the refresh of server "notes"` */
  what: string;
}

/** true while process `pid` exists (EPERM: it does, as another user's) */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** the pid in a lock file; undefined when it is unreadable or not yet written */
function holderOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** creates `file` with our pid; false when it exists */
function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes `file` when its holder is not running. Only one process at a time decides that (it holds
 * `file.break`, itself a lock), and it looks at the holder again once it does: without that, a
 * process that saw the dead holder could remove the lock another one has just taken over.
 */
function breakIfStale(file: string): void {
  const breaker = `${file}.break`;
  if (!tryCreate(breaker)) {
    const b = holderOf(breaker);
    if (b !== undefined && !running(b)) rmSync(breaker, { force: true });
    return;
  }
  try {
    const holder = holderOf(file);
    if (holder !== undefined && !running(holder)) rmSync(file, { force: true });
  } finally {
    rmSync(breaker, { force: true });
  }
}

/** takes the lock, waiting for its holder; resolves to its release */
export async function acquireLock(file: string, opts: LockOptions): Promise<() => void> {
  const deadline = Date.now() + opts.timeoutMs;
  let pause = POLL_FIRST_MS;
  let told = false;
  for (;;) {
    if (tryCreate(file)) return () => rmSync(file, { force: true });
    breakIfStale(file);
    const holder = holderOf(file);
    if (!told && (holder === undefined || running(holder))) {
      told = true;
      opts.onWait?.(holder);
    }
    if (Date.now() >= deadline)
      throw new McpxError(
        `${opts.what} waited ${opts.timeoutMs / 1000}s for the lock ${file}, held by ` +
          `${holder === undefined ? "a process that wrote no pid" : `pid ${holder}`}, and gave up: ` +
          `if no mcpx process is running, remove that file`,
        "AUTH_FAILED",
      );
    await Bun.sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
    pause = Math.min(pause * 2, POLL_MAX_MS);
  }
}
