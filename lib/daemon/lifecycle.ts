// mcpx daemon start | status | stop | restart, and the start on demand of --remote. A daemon is
// found by its address (address.ts: one per user and config chain) and its pid file, which the daemon
// itself writes beside its socket once it listens and removes when it stops (server.ts): so status
// and stop work on a daemon started in the foreground too, and a second start finds the first.

import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { McpxError } from "../errors/mcpx-error.ts";
import { runtimeDir } from "../paths/dirs.ts";
import { GONE_POLL_MS } from "../process/group.ts";
import { running } from "../process/proc-table.ts";
import type { DaemonAddress } from "./address.ts";
import { DaemonClientError, daemonJson } from "./client.ts";
import type { Readiness } from "./readiness.ts";

/** the actions after `mcpx daemon` (cmd/daemon.ts); none runs the daemon in the foreground */
export const DAEMON_ACTIONS = ["start", "status", "stop", "restart"] as const;

/** what GET /v1/health answers (routes.ts) */
export interface Health {
  ok: true;
  version: string;
  pid: number;
  uptimeMs: number;
  runs: { active: number; total: number };
  /** SIGTERM began the drain: new runs are refused */
  draining: boolean;
  /** daemon.drainGrace: how long a drain lets runs in flight finish */
  drainGraceMs: number;
  events: { lastSeq: number };
  cwd: string;
  config: string[];
}

/** where a daemon's pid and, when started in the background, its output go */
export interface DaemonFiles {
  pid: string;
  log: string;
}

/** the variable a background start names the daemon's readiness pipe by; the daemon unsets it */
export const READY_FD_VAR = "MCPX_DAEMON_READY_FD";

/**
 * How long `stop` waits for SIGTERM to end a daemon before SIGKILL, past the daemon's own drain grace
 * (daemon.drainGrace, which it reports in /v1/health): its shutdown then waits 5 s for cancelled runs.
 */
const STOP_GRACE_MS = 10_000;

/**
 * Beside the socket, named like it (`daemon.sock` → `daemon.pid`, `daemon.log`); for TCP in the
 * runtime directory, named by host and port.
 */
export function daemonFiles(addr: DaemonAddress, env: Record<string, string | undefined>): DaemonFiles {
  const stem =
    addr.kind === "unix" ? addr.path.replace(/\.sock$/, "") : join(runtimeDir(env), `daemon-${addr.host === "::1" ? "ip6" : addr.host}-${addr.port}`);
  return { pid: `${stem}.pid`, log: `${stem}.log` };
}

/** the daemon answering at the address, or undefined when none listens there (a wrong token or another failure throws) */
export async function health(addr: DaemonAddress, token: string): Promise<Health | undefined> {
  try {
    return await daemonJson<Health>(addr, token, "GET", "/v1/health");
  } catch (e) {
    if (e instanceof DaemonClientError && e.code === "E_NO_DAEMON") return undefined;
    throw e;
  }
}

/** GET /v1/health/ready at the address, ready or not (200 and 503 alike), or undefined when no daemon listens there */
export async function readinessAt(addr: DaemonAddress, token: string): Promise<Readiness | undefined> {
  try {
    return await daemonJson<Readiness>(addr, token, "GET", "/v1/health/ready", undefined, [503]);
  } catch (e) {
    if (e instanceof DaemonClientError && e.code === "E_NO_DAEMON") return undefined;
    throw e;
  }
}

/** the pid a pid file holds, if it holds one */
export function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function writePidFile(file: string, pid: number): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${pid}\n`, { mode: 0o600 });
}

/** removes the pid file if it is still this pid's (a daemon started after it may have written its own) */
export function removePidFile(file: string, pid: number): void {
  if (readPid(file) === pid) rmSync(file, { force: true });
}

/** the command that starts this mcpx again: the binary itself, or bun with the entry when run from source */
function selfCommand(): string[] {
  return Bun.main.startsWith("/$bunfs/") ? [process.execPath] : [process.execPath, Bun.main];
}

export interface Started {
  pid: number;
  address: string;
  log: string;
}

/**
 * Starts `mcpx daemon ARGS` in its own session, its output appended to the log, and resolves once it
 * listens (it says so on the readiness pipe). A daemon that exits first is an error carrying what it
 * printed, with its exit code's error code (an untrusted config, a bad setting: exit 2).
 */
export async function startInBackground(args: string[], opts: { cwd: string; env: Record<string, string | undefined>; files: DaemonFiles }): Promise<Started> {
  mkdirSync(dirname(opts.files.log), { recursive: true, mode: 0o700 });
  const logFd = openSync(opts.files.log, "a", 0o600);
  const logStart = statSync(opts.files.log).size;
  const [cmd, ...pre] = selfCommand();
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(cmd!, [...pre, "daemon", ...args], {
      cwd: opts.cwd,
      env: { ...opts.env, [READY_FD_VAR]: "3" },
      detached: true,
      stdio: ["ignore", logFd, logFd, "pipe"],
    });
  } finally {
    closeSync(logFd);
  }
  const ready = child.stdio[3]!;
  const outcome = await new Promise<{ address: string } | { exit: number | null; signal: string | null }>((resolve) => {
    let said = "";
    ready.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      const nl = said.indexOf("\n");
      if (nl >= 0) resolve({ address: said.slice(0, nl) });
    });
    child.once("exit", (exit, signal) => resolve({ exit, signal }));
    child.once("error", () => resolve({ exit: null, signal: null }));
  });
  ready.destroy();
  if ("address" in outcome) {
    child.unref();
    return { pid: child.pid!, address: outcome.address, log: opts.files.log };
  }
  const printed = logSince(opts.files.log, logStart).trim();
  const how = outcome.exit !== null ? `exited ${outcome.exit}` : outcome.signal ? `was killed by ${outcome.signal}` : "could not be started";
  throw new McpxError(
    `mcpx daemon ${how} before it listened${printed ? `: ${printed}` : ""} (its log: ${opts.files.log})`,
    outcome.exit === 2 ? "E_DAEMON" : "DAEMON_FAILED",
  );
}

/** what the log got since `from` (the last 4 KiB of it) */
function logSince(file: string, from: number): string {
  const fd = openSync(file, "r");
  try {
    const size = statSync(file).size;
    const start = Math.max(from, size - 4096);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

export interface Stopped {
  pid: number;
  /** SIGTERM did not end it within the grace: it got SIGKILL */
  forced: boolean;
  /** the grace SIGTERM had: the daemon's drain grace plus STOP_GRACE_MS */
  graceMs: number;
}

/**
 * Ends the daemon at the address: the pid it reports (or its pid file's, when it no longer answers),
 * SIGTERM (the daemon drains: its runs in flight may finish), then SIGKILL after its drain grace and
 * STOP_GRACE_MS. Undefined when there was none; a stale pid file is removed.
 */
export async function stopDaemon(addr: DaemonAddress, token: string, files: DaemonFiles): Promise<Stopped | undefined> {
  const answering = await health(addr, token);
  const pid = answering?.pid ?? livePid(files.pid);
  if (pid === undefined) {
    rmSync(files.pid, { force: true });
    return undefined;
  }
  process.kill(pid, "SIGTERM");
  // a daemon that no longer answers (or an older one) reports no grace: only STOP_GRACE_MS
  const graceMs = (answering?.drainGraceMs ?? 0) + STOP_GRACE_MS;
  const deadline = Date.now() + graceMs;
  // not our child, so nothing to wait on but its existence
  while (running(pid) && Date.now() < deadline) await Bun.sleep(GONE_POLL_MS);
  let forced = false;
  if (running(pid)) {
    process.kill(pid, "SIGKILL");
    forced = true;
    while (running(pid)) await Bun.sleep(GONE_POLL_MS);
  }
  // a daemon killed hard leaves its files; one that ended cleanly removed them itself
  removePidFile(files.pid, pid);
  if (forced && addr.kind === "unix") rmSync(addr.path, { force: true });
  return { pid, forced, graceMs };
}

/**
 * The pid file's pid if that process lives and is an mcpx daemon (a pid may be reused by another
 * program after a daemon was killed hard: that one is never signalled).
 */
function livePid(file: string): number | undefined {
  const pid = readPid(file);
  if (pid === undefined || !running(pid)) return undefined;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return argv.includes("daemon") ? pid : undefined;
  } catch {
    return undefined;
  }
}
