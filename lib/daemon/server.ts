// `mcpx daemon`: one engine (pool, bus, gate) for the daemon's lifetime, shared by every run, served
// over HTTP on a unix socket (0600, in a 0700 directory) by default, or on loopback TCP with a
// bearer token. It ends cleanly: stop() cancels runs (their process groups ended), closes event
// streams and the pool and removes the socket; drain() (SIGTERM) first refuses new runs and lets the
// runs in flight finish within daemon.drainGrace (docs/decisions/0025).

import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, rmSync, writeSync, type Stats } from "node:fs";
import { dirname } from "node:path";
import type { Server } from "bun";
import { McpxError } from "../errors/mcpx-error.ts";
import { openEngine, type Engine } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import { SettingsError } from "../settings/resolve.ts";
import { err } from "../util/fd-write.ts";
import { configPaths, defaultSocketPath, formatAddress, sessionAddress, type DaemonAddress } from "./address.ts";
import type { DaemonDeps } from "./context.ts";
import { bearerOk, errorResponse } from "./http.ts";
import { startReaper } from "./reaper.ts";
import { weakTokenReason } from "./token.ts";
import { closeMcp } from "./mcp-mount.ts";
import { KeptRuntime } from "../runtime/runtime-sources.ts";
import { unsafeDirReason } from "../paths/socket-dir.ts";
import { decideSandbox, sandboxContext, unsandboxedWarning } from "../exec/door-policy.ts";
import { runtimeBundle } from "../runtime/launcher-files.ts";
import { KINDS, kindOf } from "../runtime/kinds.ts";
import { scriptEnv } from "../runtime/script-env.ts";
import { daemonFiles, READY_FD_VAR, removePidFile, writePidFile } from "./lifecycle.ts";
import { dispatch } from "./routes.ts";
import { runsFor } from "./runs.ts";
import { artifactsFor } from "./kept-artifacts.ts";
import { keepAliveMs } from "./sse.ts";
import { hookCalls } from "../exec/hook-calls.ts";
import { telemetryTaps } from "../telemetry/otel-load.ts";
import { servingCalls } from "../util/jit-policy.ts";

/** how long shutdown waits for cancelled runs to end their process groups (the runner's kill grace is 1.5 s) */
const SHUTDOWN_WAIT_MS = 5_000;

export interface Daemon {
  /** the address as printed: the socket path or the URL (with the port actually bound) */
  address: string;
  /** cancels every run, closes streams, the pool and the socket; idempotent */
  stop(): Promise<void>;
  /** refuses new runs, waits at most daemon.drainGrace for the runs in flight, then stop(); idempotent */
  drain(): Promise<void>;
  /** resolves once stop() has finished */
  closed: Promise<void>;
}

/** a daemon that cannot start (address in use, not a socket, cannot bind): exit 2 (lib/errors/codes.ts E_DAEMON) */
export class DaemonError extends McpxError {
  constructor(message: string) {
    super(message, "E_DAEMON");
  }
}

export async function startDaemon(session: Session): Promise<Daemon> {
  const addr = sessionAddress(session, true);
  const token = session.get("daemon.token");
  if (addr.kind === "tcp" && token === "") {
    throw new SettingsError(
      `daemon.address ${formatAddress(addr)} is TCP, and TCP needs daemon.token: set ` +
        `MCPX_DAEMON_TOKEN (or daemon.token in a config file) to a secret, or leave daemon.address ` +
        `empty for the unix socket`,
    );
  }
  const weak = token === "" ? undefined : weakTokenReason(token);
  if (weak) throw new SettingsError(`daemon.token (${session.settings.get("daemon.token")!.origin}) ${weak}`);
  const maxBody = session.get("daemon.maxBody");
  if (maxBody <= 0) throw new SettingsError(`daemon.maxBody ${maxBody}: give the largest request body to accept, in bytes (> 0)`);
  const keepAlive = keepAliveMs(session.env);
  const runs = runsFor(session);
  const artifacts = artifactsFor(session);
  if (addr.kind === "unix") await prepareSocketPath(addr.path, addr.path === defaultSocketPath(session.env, configPaths(session)));

  const engine = openEngine(session, { calls: hookCalls(session), taps: await telemetryTaps(session) });
  const deps: DaemonDeps = {
    session,
    engine,
    runs,
    artifacts,
    runtimes: new KeptRuntime(),
    startedAt: Date.now(),
    address: formatAddress(addr),
    transport: addr.kind,
    maxBody,
    keepAliveMs: keepAlive,
  };

  let server: Server<unknown>;
  try {
    server = listen(addr, deps, token);
  } catch (e) {
    await engine.close();
    throw new DaemonError(`cannot listen on ${formatAddress(addr)}: ${(e as Error).message}`);
  }
  const address = addr.kind === "unix" ? addr.path : formatAddress({ ...addr, port: server.port ?? addr.port });
  deps.address = address;
  const startServers = session.get("daemon.startServers");
  const reaper = startReaper(
    engine.pool,
    session.get("daemon.idleTimeout"),
    // servers started at boot are kept: stopping an idle one would turn readiness red with nothing wrong
    startServers ? engine.pool.names() : engine.plugins.map((p) => p.name),
  );

  let stopping: Promise<void> | undefined;
  let closedResolve!: () => void;
  const closed = new Promise<void>((r) => (closedResolve = r));
  const stop = () =>
    (stopping ??= (async () => {
      reaper.stop();
      await runs.stopAll(SHUTDOWN_WAIT_MS);
      await deps.runtimes.close();
      engine.bus.close(); // ends every /v1/events stream
      await closeMcp(engine).catch(() => {});
      await server.stop(true);
      await closeEngine(engine);
      if (addr.kind === "unix") rmSync(addr.path, { force: true });
      if (files) removePidFile(files.pid, process.pid);
      closedResolve();
    })());
  const drainGrace = session.get("daemon.drainGrace");
  let draining: Promise<void> | undefined;
  const drain = () =>
    (draining ??= (async () => {
      err(`mcpx daemon: draining: new runs are refused, ${runs.active} in flight may finish within ${drainGrace} ms (daemon.drainGrace)\n`);
      const left = await runs.drain(drainGrace);
      if (left > 0) err(`mcpx daemon: ${left} runs still going after daemon.drainGrace are cancelled\n`);
      await stop();
    })());
  // a TCP daemon on port 0 has no address to be found by again: no pid file
  const files = addr.kind === "tcp" && addr.port === 0 ? undefined : daemonFiles(addr, session.env);
  if (files) writePidFile(files.pid, process.pid);
  void primeRuntime(session, deps.runtimes);
  if (startServers) startEveryServer(engine);
  // it serves calls and runs from here on: its code tiers up as usual (the binary starts reluctant)
  servingCalls();
  err(`mcpx daemon listening on ${address}\n`);
  tellReady(session.env, address);
  const unsandboxed = unsandboxedWarning(session, "mcpx daemon (/mcp)");
  if (unsandboxed) err(unsandboxed + "\n");
  return { address, stop, drain, closed };
}

/**
 * daemon.startServers: every usable server starts now, all at once, while the daemon already answers
 * (liveness is green, readiness says "starting"); a start that fails is said on stderr and shown by
 * readiness until a start succeeds.
 */
function startEveryServer(engine: Engine): void {
  for (const name of engine.pool.names())
    void engine.pool.start(name).catch((e) => err(`mcpx daemon: server ${name} did not start: ${(e as Error)?.message ?? e}\n`));
}

/**
 * `mcpx daemon start` waits on a pipe for the address (lifecycle.ts): written once listening, then
 * closed, so the starter can return while the daemon goes on. The variable goes with it: nothing the
 * daemon starts inherits the pipe's number.
 */
function tellReady(env: Record<string, string | undefined>, address: string): void {
  const fd = Number(env[READY_FD_VAR]);
  delete env[READY_FD_VAR];
  delete process.env[READY_FD_VAR];
  if (!Number.isInteger(fd) || fd < 3) return;
  try {
    writeSync(fd, `${address}\n`);
    closeSync(fd);
  } catch {
    // the starter went away: nobody is waiting
  }
}

/**
 * The first run finds a runtime started too, when it has the shape of a plain run here: the
 * configured runtime (Bun, Node, or Deno where it can be started before its run), unsandboxed on /v1/exec,
 * in the daemon's directory, without --env (a `mcpx exec --remote` from the same directory). Builds
 * the runtime bundle if this cache has none yet.
 */
async function primeRuntime(session: Session, runtimes: KeptRuntime): Promise<void> {
  const runtime = session.get("script.runtime");
  const sandbox = decideSandbox(undefined, sandboxContext(session, "http").policy);
  if (!sandbox.ok || sandbox.on) return;
  try {
    const bundle = await runtimeBundle(session.cacheDir);
    const how = {
      cacheDir: session.cacheDir,
      env: scriptEnv(session.env, {}),
      cwd: session.cwd,
      stdin: "pipe" as const,
      autoInstall: session.get("exec.autoInstall"),
      heapMb: session.get("exec.maxHeap"),
    };
    const shape = KINDS[kindOf(runtime, false)].shape(bundle, how);
    if (shape) runtimes.prime(shape);
  } catch {
    // the first run builds the bundle itself (and says so if it cannot), or finds no Deno or Node (and says so)
  }
}

function listen(addr: DaemonAddress, deps: DaemonDeps, token: string): Server<unknown> {
  const options = {
    // no idle cut-off: a run may be quiet for minutes and an event stream waits for events (Bun's
    // default closes a connection after 10 s without bytes, and its per-request timeout does not
    // cover a streaming response); clients that go away are noticed by the closed connection
    idleTimeout: 0,
    // the daemon's own check answers 413 with its JSON; Bun's cap sits above it as a backstop
    maxRequestBodySize: deps.maxBody + 1024 * 1024,
    fetch: async (req: Request): Promise<Response> => {
      if (addr.kind === "tcp" && !bearerOk(req, token)) {
        return errorResponse(
          401,
          "UNAUTHORIZED",
          "this daemon listens on TCP and needs Authorization: Bearer TOKEN (the daemon.token setting, MCPX_DAEMON_TOKEN)",
          {},
          { "www-authenticate": 'Bearer realm="mcpx"' },
        );
      }
      try {
        return await dispatch(req, { deps, url: new URL(req.url) });
      } catch (e) {
        return errorResponse(500, "INTERNAL", `the daemon failed on ${req.method} ${new URL(req.url).pathname}: ${(e as Error)?.stack ?? e}`);
      }
    },
    error: (e: Error) => errorResponse(500, "INTERNAL", String(e?.stack ?? e)),
  };
  if (addr.kind === "tcp") return Bun.serve({ ...options, hostname: addr.host, port: addr.port });
  // the socket is created with no access for group or others, then chmod'ed to be sure: no window
  // in which another user could connect
  const umask = process.umask(0o177);
  try {
    // bun-types leave idleTimeout out of the unix-socket options, but Bun honours it there (an SSE
    // stream stays open past 10 s only with it: test/e2e/daemon-runs.test.ts)
    const server = Bun.serve({ ...options, unix: addr.path } as unknown as Parameters<typeof Bun.serve>[0]);
    chmodSync(addr.path, 0o600);
    return server;
  } finally {
    process.umask(umask);
  }
}

/**
 * Makes the socket's directory (0700) and clears a stale socket left by a daemon that died; a live
 * daemon on the path, or a path that is not a socket, is an error.
 */
async function prepareSocketPath(path: string, isDefault: boolean): Promise<void> {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  // the default directory is mcpx's own; a directory the user named is left as they made it
  if (isDefault) {
    const uid = typeof process.getuid === "function" ? process.getuid() : 0;
    const first = lstatSync(dir);
    if (first.isDirectory() && !first.isSymbolicLink() && first.uid === uid) chmodSync(dir, 0o700);
    // clients find the default socket by its path, so another directory cannot be picked here
    const why = unsafeDirReason(lstatSync(dir), uid);
    if (why)
      throw new DaemonError(
        `the daemon's socket directory ${dir} ${why}: someone else may have made it first. Remove ` +
          `it, set XDG_RUNTIME_DIR to a private directory of yours, or set daemon.address to a socket path in one`,
      );
  }
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new DaemonError(`${path} exists and is not a socket: remove it, or set daemon.address to another path`);
  if (await socketAnswers(path)) throw new DaemonError(`a daemon is already listening on ${path}: stop it first, or set daemon.address to another path`);
  rmSync(path, { force: true });
}

/** whether something accepts connections on the socket (a stale file refuses them) */
async function socketAnswers(path: string): Promise<boolean> {
  try {
    const s = await Bun.connect({ unix: path, socket: { data() {}, open() {}, error() {} } });
    s.end();
    return true;
  } catch {
    return false;
  }
}

async function closeEngine(engine: Engine): Promise<void> {
  try {
    await engine.close();
  } catch (e) {
    err(`mcpx daemon: closing the upstream pool failed: ${(e as Error).message}\n`);
  }
}
