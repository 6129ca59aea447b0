// The daemon a command starts: `mcpx daemon start` for itself, and --remote (or the remote setting)
// when no daemon answers and daemon.autoStart is on. Either way it is the same `mcpx daemon` a user
// would type, in the same directory and environment, with the command's config file and daemon
// settings: on its command line, except secrets, which go in its environment (a command line is
// readable by every local user in ps).

import { resolve } from "node:path";
import type { Session } from "../session/session.ts";
import { declOf, envName } from "../settings/setting-names.ts";
import { err } from "../util/fd-write.ts";
import { formatAddress, type DaemonAddress } from "./address.ts";
import { DaemonClientError } from "./client.ts";
import type { Started } from "./lifecycle.ts";

/**
 * The daemon's command line and extra variables. `callerOnly`: a --remote command hands on only the
 * settings it shares with the daemon (daemon.address, daemon.token): its others travel with each run
 * or are refused by refuseStayingFlags, and must not become every later run's defaults.
 */
function daemonStartArgs(session: Session, callerOnly: boolean): { args: string[]; env: Record<string, string> } {
  const args: string[] = [];
  const env: Record<string, string> = {};
  if (session.input.configFlag !== undefined) args.push("--config", resolve(session.cwd, session.input.configFlag));
  for (const flag of session.input.flags ?? []) {
    const decl = declOf(flag.path);
    if (!decl?.commands?.includes("daemon") || (callerOnly && decl.remote !== "caller")) continue;
    if (decl.secret) env[envName(flag.path)] = flag.value;
    else args.push(`${flag.spelling}=${flag.value}`);
  }
  return { args, env };
}

/** starts this session's daemon (at `address`, its daemon.address) in the background and waits until it listens */
export async function startSessionDaemon(session: Session, address: DaemonAddress, callerOnly: boolean): Promise<Started> {
  const { args, env } = daemonStartArgs(session, callerOnly);
  // loaded only to start one: a request to a daemon that is there (every --remote run but the first) needs none of it
  const { daemonFiles, startInBackground } = await import("./lifecycle.ts");
  return startInBackground(args, { cwd: session.cwd, env: { ...session.env, ...env }, files: daemonFiles(address, session.env) });
}

/**
 * A --remote request, sent; when no daemon answers and daemon.autoStart is on, the daemon is started
 * (said once on stderr) and the request sent again. Never run here instead: a user who asked for the
 * daemon gets the daemon or an error.
 */
export async function withDaemon<T>(session: Session, address: DaemonAddress, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    if (!startsOnDemand(e, session)) throw e;
  }
  await startOnDemand(session, address);
  return send();
}

/** the same for a stream of frames: it fails, if at all, before its first frame */
export async function* streamWithDaemon<T>(session: Session, address: DaemonAddress, open: () => AsyncIterable<T>): AsyncIterable<T> {
  const first = open()[Symbol.asyncIterator]();
  let head: IteratorResult<T>;
  try {
    head = await first.next();
  } catch (e) {
    if (!startsOnDemand(e, session)) throw e;
    await startOnDemand(session, address);
    yield* open();
    return;
  }
  if (head.done) return;
  yield head.value;
  for (let next = await first.next(); !next.done; next = await first.next()) yield next.value;
}

/** the request failed for want of a daemon, and daemon.autoStart lets one be started */
function startsOnDemand(e: unknown, session: Session): boolean {
  return e instanceof DaemonClientError && e.code === "E_NO_DAEMON" && session.get("daemon.autoStart");
}

async function startOnDemand(session: Session, address: DaemonAddress): Promise<void> {
  const started = await startSessionDaemon(session, address, true);
  err(
    `mcpx: no daemon was listening on ${formatAddress(address)}, so one was started (pid ${started.pid}, log ${started.log}); ` +
      "`mcpx daemon stop` ends it, daemon.autoStart=false (MCPX_DAEMON_AUTO_START=0) turns this off\n",
  );
}
