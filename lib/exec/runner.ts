// The host half of one script run: writes the launcher, opens the per-run call channel, starts the
// runtime in its own process group, turns what it writes into frames, answers its tool calls, and
// ends the whole group on exit, timeout or cancel. The in-script half is launcher/runtime.ts.

import { chmodSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Socket } from "bun";
import { fillTemplate, phaseBlock, type PhaseLine } from "../../launcher/template.ts";
import { writeContentFile } from "../paths/content-file.ts";
import { runtimeBundle } from "./launcher-files.ts";
import type { ScriptPhase } from "../settings/registry.ts";
import type { Frame, LogLevel, SerializedError } from "./frames.ts";
import { runtimeCommand, type RuntimeName } from "./runtimes.ts";
import { SANDBOX_PASS_ENV, channelGrants, type SandboxAllow } from "./sandbox.ts";
import { privateSocketDir } from "../paths/socket-dir.ts";
import { StdoutSplitter } from "./stdout-splitter.ts";
import { SocketWriteQueue } from "../util/socket-write-queue.ts";
import { KILL_GRACE_MS } from "../process/group.ts";
import { Lineage } from "../process/lineage.ts";

export interface RunSpec {
  runId: string;
  scriptPath: string;
  scriptName: string;
  args: string[];
  export?: string;
  /** each phase's lines with their origins, which an error thrown by a line names */
  phases: Record<ScriptPhase, PhaseLine[]>;
  runtime: RuntimeName;
  /** 0 = no limit */
  timeoutMs: number;
  env: Record<string, string | undefined>;
  cwd: string;
  /** "inherit" passes mcpx's own stdin; a string is written and closed */
  stdin: "inherit" | string;
  /** [real server name, global identifier or null] */
  servers: Array<[string, string | null]>;
  cacheDir: string;
  sockDir: string;
  signal?: AbortSignal;
  /** exec.autoInstall: the runtime may download packages the script imports */
  autoInstall: boolean;
  /** set when the run is sandboxed: what exec.sandboxAllow grants, and the variables the caller set (ExecOptions.env) */
  sandbox?: { allow: SandboxAllow; callerEnv: string[] };
}

export type CallAnswer = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export interface RunHandlers {
  /** body frames, in the order the script produced them */
  frame(f: Frame): void;
  /** one tool call from the script; the host's gate and pool answer it */
  call(server: string, tool: string, args: Record<string, unknown>): Promise<CallAnswer>;
}

export interface RunOutcome {
  ok: boolean;
  value?: unknown;
  error?: SerializedError;
  exitCode: number;
}

export async function runScript(spec: RunSpec, h: RunHandlers): Promise<RunOutcome> {
  const nonce = randomToken(9);
  const token = randomToken(24);
  const runtimeFile = await runtimeBundle(spec.cacheDir);
  const launcher = writeLauncher(spec, runtimeFile);
  const sockDir = privateSocketDir(spec.sockDir);
  if (sockDir.note) h.frame({ type: "log", level: "warn", message: sockDir.note });
  const sockPath = join(sockDir.dir, `${spec.runId.slice(0, 12)}.sock`);
  // how the launcher reaches the host: the sandbox grants exactly this and no more (sandbox.ts channelGrants)
  const channelInfo = { sock: sockPath, env: [RUN_ENV] };
  const cmd = await runtimeCommand(spec.runtime, launcher, spec.cacheDir, spec.scriptPath, {
    autoInstall: spec.autoInstall,
    sandbox: spec.sandbox && { files: [launcher, runtimeFile, spec.scriptPath], channel: channelGrants(channelInfo), callerEnv: spec.sandbox.callerEnv, allow: spec.sandbox.allow },
  });
  const channel = openChannel(sockPath, token, h);

  // everything the script starts carries the lineage marker, and is ended with the run
  const lineage = new Lineage(spec.runId);
  const env: Record<string, string | undefined> = { ...(spec.sandbox ? sandboxEnv(spec.env, spec.sandbox.callerEnv) : spec.env), ...cmd.env, ...lineage.env() };
  env[RUN_ENV] = JSON.stringify({
    host: process.pid, // the launcher ends its group when this process is gone (launcher/runtime.ts watchHost)
    sock: sockPath,
    token,
    nonce,
    runId: spec.runId,
    servers: spec.servers,
    script: { path: spec.scriptPath, name: spec.scriptName, args: spec.args, export: spec.export },
  });

  let child: ReturnType<typeof Bun.spawn<"pipe" | "inherit", "pipe", "pipe">>;
  try {
    child = Bun.spawn({
      cmd: cmd.argv,
      cwd: spec.cwd,
      env: env as Record<string, string>,
      stdin: spec.stdin === "inherit" ? "inherit" : "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true, // its own process group, so a timeout or cancel ends everything it started
    });
  } catch (err) {
    channel.close();
    throw err;
  }
  lineage.track(child.pid);
  if (spec.stdin !== "inherit") {
    const sink = child.stdin as import("bun").FileSink;
    sink.write(spec.stdin);
    sink.end();
  }

  let marker: { ok: true; value: unknown } | { ok: false; error: SerializedError } | undefined;
  const splitter = new StdoutSplitter(nonce);
  const onPiece = (p: ReturnType<StdoutSplitter["push"]>[number]) => {
    if (p.kind === "text") return h.frame({ type: "stdout", data: p.data });
    const b = p.body;
    switch (b.t) {
      case "stdout":
        return h.frame({ type: "stdout", data: String(b.d) });
      case "stderr":
        return h.frame({ type: "stderr", data: String(b.d) });
      case "log":
        return h.frame({ type: "log", level: b.level as LogLevel, message: String(b.msg) });
      case "emit":
        return h.frame({ type: "emit", value: b.v });
      case "call":
        return channel.call(b.id as number, String(b.server), String(b.tool), (b.args ?? {}) as Record<string, unknown>);
      case "result":
        marker = { ok: true, value: b.u ? undefined : b.v };
        return;
      case "error":
        marker = { ok: false, error: b.e as SerializedError };
        return;
    }
  };
  const stdoutDone = pump(child.stdout, (s) => splitter.push(s).forEach(onPiece)).then(() => splitter.end().forEach(onPiece));
  const stderrDone = pump(child.stderr, (s) => h.frame({ type: "stderr", data: s }));

  let stopped: "timeout" | "interrupted" | undefined;
  const stop = (why: "timeout" | "interrupted") => {
    if (stopped) return;
    stopped = why;
    void lineage.end();
  };
  const timer = spec.timeoutMs > 0 ? setTimeout(() => stop("timeout"), spec.timeoutMs) : undefined;
  const onAbort = () => stop("interrupted");
  spec.signal?.addEventListener("abort", onAbort);
  if (spec.signal?.aborted) onAbort();

  const code = await child.exited;
  clearTimeout(timer);
  spec.signal?.removeEventListener("abort", onAbort);
  // whatever the script left behind goes with it, in its group or not: no orphans
  await lineage.end();
  await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(KILL_GRACE_MS + 500)]);
  channel.close();

  if (stopped === "timeout") {
    return { ok: false, exitCode: 124, error: { name: "TimeoutError", code: "TIMEOUT", message: `the script ran past its timeout of ${spec.timeoutMs}ms (exec.timeout / --timeout) and its process group was ended` } };
  }
  if (stopped === "interrupted") {
    return { ok: false, exitCode: 130, error: { name: "InterruptedError", code: "INTERRUPTED", message: "the run was interrupted and its process group was ended" } };
  }
  if (marker?.ok) return { ok: true, value: marker.value, exitCode: code === 0 ? 0 : code };
  if (marker) return { ok: false, error: marker.error, exitCode: code === 0 ? 1 : code };
  if (code === 0) return { ok: true, value: undefined, exitCode: 0 };
  const signal = child.signalCode;
  return {
    ok: false,
    exitCode: signal ? 128 + (signalNumber(String(signal)) ?? 0) : code,
    error: { name: "ExitError", code: "EXIT", message: signal ? `the script was killed by ${signal}` : `the script exited with code ${code}` },
  };
}

/** the variable that hands the launcher its run (launcher/runtime.ts reads and deletes it) */
const RUN_ENV = "MCPX_RUN";

/**
 * A sandboxed run starts from an environment of its own: only what Deno needs to find its cache and
 * the registry, and the variables the caller set for the script. mcpx's own environment (API keys,
 * tokens) is not there at all, even though the sandbox would also refuse to read it.
 */
function sandboxEnv(env: Record<string, string | undefined>, callerEnv: string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of [...SANDBOX_PASS_ENV, ...callerEnv]) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** the generated launcher for this run's phases and script, content-addressed in the cache */
function writeLauncher(spec: RunSpec, runtimeFile: string): string {
  const dir = join(spec.cacheDir, "launch");
  const text = fillTemplate({
    runtime: JSON.stringify(pathToFileURL(runtimeFile).href),
    import: JSON.stringify(pathToFileURL(spec.scriptPath).href),
    before: phaseBlock("before", spec.phases.before),
    prefix: phaseBlock("prefix", spec.phases.prefix),
    onSuccess: phaseBlock("onSuccess", spec.phases.onSuccess),
    onError: phaseBlock("onError", spec.phases.onError),
    suffix: phaseBlock("suffix", spec.phases.suffix),
  });
  return writeContentFile(dir, "launcher-", ".ts", text);
}

interface Channel {
  call(id: number, server: string, tool: string, args: Record<string, unknown>): void;
  close(): void;
}

/** the per-run unix socket; only a client that first sends the run's token gets answers */
function openChannel(path: string, token: string, h: RunHandlers): Channel {
  rmSync(path, { force: true });
  type Conn = { buf: string; ok: boolean; out: SocketWriteQueue };
  let authed: Socket<Conn> | undefined;
  // answers that are ready before the launcher has connected wait here, in order
  const early: string[] = [];
  const send = (line: string) => (authed ? authed.data.out.write(line) : early.push(line));
  const server = Bun.listen<Conn>({
    unix: path,
    socket: {
      open(s) {
        s.data = { buf: "", ok: false, out: new SocketWriteQueue(s) };
      },
      data(s, chunk) {
        if (s.data.ok) return;
        s.data.buf += chunk.toString();
        const nl = s.data.buf.indexOf("\n");
        if (nl < 0) return;
        if (s.data.buf.slice(0, nl) !== token || authed) return void s.end();
        s.data.ok = true;
        authed = s;
        for (const line of early.splice(0)) s.data.out.write(line);
      },
      drain(s) {
        s.data.out.drain();
      },
    },
  });
  chmodSync(path, 0o600);
  return {
    call(id, srv, tool, args) {
      h.call(srv, tool, args).then(
        (answer) => send(JSON.stringify({ id, ...answer }) + "\n"),
        (err) => send(JSON.stringify({ id, ok: false, error: { name: "Error", message: String(err?.message ?? err) } }) + "\n"),
      );
    },
    close() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}

async function pump(stream: ReadableStream<Uint8Array>, onText: (s: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    const s = decoder.decode(chunk, { stream: true });
    if (s) onText(s);
  }
  const rest = decoder.decode();
  if (rest) onText(rest);
}

/** n random bytes as base64url (web crypto: node:crypto costs start-up time) */
function randomToken(n: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("base64url");
}

function signalNumber(name: string): number | undefined {
  const { constants } = require("node:os") as typeof import("node:os");
  return (constants.signals as Record<string, number>)[name];
}
