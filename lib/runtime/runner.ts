// The host half of one script run: writes the launcher, opens the per-run call channel, starts the
// runtime in its own process group, turns what it writes into frames, answers its tool calls, and
// ends the whole group on exit, timeout or cancel. The in-script half is launcher/runtime.ts.

import { chmodSync, closeSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "bun";
import { fillTemplate, phaseBlock, type PhaseLine } from "../../launcher/template.ts";
import { exitCodeOf, frameCodeOf } from "../errors/codes.ts";
import { writeContentFile } from "../paths/content-file.ts";
import { loadWire, runtimeBundle } from "./launcher-files.ts";
// type-only: the wire's code is evaluated from the runtime's own text (loadWire, launcher-files.ts says why)
import type { Handoff, ServerBinding } from "../../launcher/wire.ts";
import type { ScriptPhase } from "../settings/registry.ts";
import type { ScriptFrame, SerializedError } from "./run-spec.ts";
import { denoShape, nodeLauncher, nodeShape, runtimeCommand, type RuntimeName } from "./kinds.ts";
import { SANDBOX_PASS_ENV, channelGrants, type SandboxAllow } from "./sandbox-args.ts";
import { sandboxDenoDir } from "./sandbox-deno-dir.ts";
import { privateSocketDir } from "../paths/socket-dir.ts";
import { StdoutSplitter } from "./stdout-splitter.ts";
import { latin1Bytes, latin1Text, latin1ToUtf8, Utf8Pieces, type StdoutPiece } from "./stdout-bytes.ts";
import { SocketWriteQueue } from "../util/socket-write-queue.ts";
import { closeFds, readSocket } from "../process/fd-pairs.ts";
import { answerLine, type CallAnswer } from "./channel.ts";
import { KILL_GRACE_MS } from "../process/group.ts";
import { dataLimitMb } from "../process/data-limit.ts";
import { Lineage } from "../process/lineage.ts";
import { trace, traceOnce } from "../util/trace.ts";
import { bunShape, discard, FRESH, handOver, spawnRuntime, startRuntime, type RuntimeShape, type RuntimeSource, type SpawnedRuntime } from "./ready-runtime.ts";

type Wire = typeof import("../../launcher/wire.ts");

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
  /** the setting timeoutMs came from, as a timeout error names it */
  timeoutFrom?: string;
  /** the heap limit in MiB, 0 = none; and the setting it came from, as an out-of-memory error names it */
  heap?: { mb: number; from: string };
  env: Record<string, string | undefined>;
  cwd: string;
  /** "inherit" passes mcpx's own stdin; a string is written and closed */
  stdin: "inherit" | string;
  servers: ServerBinding[];
  cacheDir: string;
  sockDir: string;
  signal?: AbortSignal;
  /** exec.autoInstall: the runtime may download packages the script imports */
  autoInstall: boolean;
  /** set when the run is sandboxed: what exec.sandboxAllow grants, and the variables the caller set (ExecOptions.env) */
  sandbox?: { allow: SandboxAllow; callerEnv: Record<string, string> };
  /** the caller set variables of its own for this run (ExecOptions.env) */
  callerEnv: boolean;
  /** where an unsandboxed run gets its runtime: one started before the run (ready-runtime.ts), or a new one */
  runtimes?: RuntimeSource;
}

export type { CallAnswer };

export interface RunHandlers {
  /** body frames, in the order the script produced them */
  frame(f: ScriptFrame): void;
  /** one tool call from the script; the host's gate and pool answer it, through `answered` as soon as the answer is known */
  call(server: string, tool: string, args: Record<string, unknown>, answered: (answer: CallAnswer) => void): Promise<CallAnswer>;
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
  const handoff: Handoff = {
    host: process.pid, // the launcher ends its group when this process is gone (launcher/runtime.ts watchHost)
    sock: sockPath,
    token,
    nonce,
    runId: spec.runId,
    servers: spec.servers,
    script: { path: spec.scriptPath, name: spec.scriptName, args: spec.args, export: spec.export },
  };
  const shape = readyShape(spec, runtimeFile);
  if (shape) {
    // the wire's decoders load while the runtime starts on its run: its first frame waits in the pipe
    const handed = shape.kind === "node" ? nodeLauncher(launcher, runtimeFile, spec.cacheDir, spec.scriptPath) : launcher;
    const started = await startedRuntime(spec, handoff, { launcher: handed, shape }, h);
    let wire: Wire;
    try {
      wire = await loadWire();
    } catch (err) {
      started.channel.close();
      if (started.stdout !== undefined) closeFds(started.stdout);
      await started.lineage.end();
      throw err;
    }
    return watchRun(spec, h, wire, nonce, started);
  }
  spec.runtimes?.startedWithRun?.();
  const wire = await loadWire();
  const started = await spawnWithHandoffFile(spec, handoff, { launcher, runtimeFile, sockPath, sockDir: sockDir.dir, fd: wire.HANDOFF_FD }, h);
  return watchRun(spec, h, wire, nonce, started);
}

interface Spawned extends SpawnedRuntime {
  lineage: Lineage;
  channel: Channel;
  /** a sandboxed Deno's handoff file, removed when the run ends if it never read it */
  handoffPath?: string;
}

/**
 * The shape of this run's runtime when it is one started before its run (ready-runtime.ts): every
 * unsandboxed run, Deno's where a pipe can be made for its handoff. Undefined for the others (the
 * sandbox, Deno where no pipe can be made), which are started with their run.
 */
function readyShape(spec: RunSpec, runtimeFile: string): RuntimeShape | undefined {
  if (spec.sandbox) return undefined;
  const how = {
    cacheDir: spec.cacheDir,
    env: spec.env,
    cwd: spec.cwd,
    stdin: spec.stdin === "inherit" ? ("inherit" as const) : ("pipe" as const),
    heapMb: spec.heap?.mb ?? 0,
  };
  if (spec.runtime === "bun" || spec.runtime === "auto") return bunShape(runtimeFile, { ...how, autoInstall: spec.autoInstall });
  return spec.runtime === "deno" ? denoShape(runtimeFile, { ...how, autoInstall: spec.autoInstall }) : nodeShape(runtimeFile, how);
}

/**
 * A run whose runtime is started before it (readyShape): a runtime started for exactly this shape,
 * before the run or now, gets the run on its fd 3, the launcher named in it.
 */
async function startedRuntime(
  spec: RunSpec,
  handoff: Handoff,
  { launcher, shape }: { launcher: string; shape: RuntimeShape },
  h: RunHandlers,
): Promise<Spawned> {
  const run = { ...handoff, launcher: { path: launcher, url: Bun.pathToFileURL(launcher).href } };
  let runtime = await (spec.runtimes ?? FRESH).runtimeFor(shape, { env: spec.callerEnv });
  const channel = openChannel(handoff.sock, handoff.token, h);
  try {
    try {
      await handOver(runtime, run);
    } catch {
      // a runtime started earlier that died while it waited (killed, out of memory): the run starts its own
      await discard(runtime);
      runtime = startRuntime(shape);
      await handOver(runtime, run);
    }
  } catch (err) {
    channel.close();
    await discard(runtime);
    throw err;
  }
  trace("run handed over");
  return { child: runtime.child, stdout: runtime.stdout, lineage: runtime.lineage, channel };
}

/** the sandbox, and Deno where no pipe can be made: a runtime started with its run, handed over in a deleted file (handoffFile) */
async function spawnWithHandoffFile(
  spec: RunSpec,
  handoff: Handoff,
  at: { launcher: string; runtimeFile: string; sockPath: string; sockDir: string; fd: number },
  h: RunHandlers,
): Promise<Spawned> {
  const { launcher, runtimeFile, sockPath } = at;
  // how the launcher reaches the host: the sandbox grants exactly this and no more (sandbox.ts channelGrants)
  // A sandboxed Deno may not open /dev/fd/N (Deno asks for --allow-all on it), so it gets the run as a
  // file path on its command line, granted to it alone, which the launcher deletes once read.
  const handoffPath = join(at.sockDir, `${spec.runId.slice(0, 12)}.run`);
  const channelInfo = { sock: sockPath, handoff: spec.sandbox ? handoffPath : `/dev/fd/${at.fd}` };
  const cmd = runtimeCommand(spec.runtime, launcher, {
    autoInstall: spec.autoInstall,
    heapMb: spec.heap?.mb ?? 0,
    sandbox: spec.sandbox && {
      files: [launcher, runtimeFile, spec.scriptPath],
      channel: channelGrants(channelInfo),
      callerEnv: Object.keys(spec.sandbox.callerEnv),
      allow: spec.sandbox.allow,
    },
  });
  // the token is in the handoff: a launcher that shows it has read the file, which then goes at once
  const channel = openChannel(sockPath, handoff.token, h, spec.sandbox ? () => rmSync(handoffPath, { force: true }) : undefined);

  // everything the script starts carries the lineage marker, and is ended with the run
  const lineage = new Lineage(spec.runId);
  const env: Record<string, string | undefined> = { ...(spec.sandbox ? sandboxEnv(spec.env, spec.cacheDir) : spec.env), ...cmd.env, ...lineage.env() };

  let spawned: SpawnedRuntime;
  // a sandboxed script's variables travel with the run and are set inside it (launcher/runtime.ts)
  const handoffFd = handoffFile(handoffPath, spec.sandbox ? { ...handoff, env: spec.sandbox.callerEnv } : handoff, !spec.sandbox);
  try {
    const cmdline = spec.sandbox ? [...cmd.argv, handoffPath] : cmd.argv;
    spawned = spawnRuntime({
      cmd: cmdline,
      cwd: spec.cwd,
      env,
      stdin: spec.stdin === "inherit" ? "inherit" : "pipe",
      fd3: handoffFd,
      dataMb: spec.heap && dataLimitMb(spec.heap.mb),
    });
  } catch (err) {
    channel.close();
    rmSync(handoffPath, { force: true });
    throw err;
  } finally {
    closeSync(handoffFd);
  }
  lineage.track(spawned.child.pid);
  return { ...spawned, lineage, channel, handoffPath: spec.sandbox ? handoffPath : undefined };
}

/** the run, from its runtime's start to its end: stdin, frames, calls, timeout and cancel, the outcome */
async function watchRun(
  spec: RunSpec,
  h: RunHandlers,
  wire: Wire,
  nonce: string,
  { child, stdout: stdoutFd, lineage, channel, handoffPath }: Spawned,
): Promise<RunOutcome> {
  const firstOutput = traceOnce();
  const firstFrame = traceOnce();
  if (spec.stdin !== "inherit") {
    const sink = child.stdin as import("bun").FileSink;
    sink.write(spec.stdin);
    sink.end();
  }

  let marker: { ok: true; value: unknown } | { ok: false; error: SerializedError } | undefined;
  // fd 1 is read as latin-1 (a char per byte) so stdout's bytes survive the splitter (stdout-bytes.ts)
  const splitter = new StdoutSplitter(nonce, latin1ToUtf8);
  const text = new Utf8Pieces();
  const stdout = (p: StdoutPiece | undefined) => p && h.frame({ type: "stdout", ...p });
  const onPiece = (p: ReturnType<StdoutSplitter["push"]>[number]) => {
    firstOutput("child ready (first output)");
    if (p.kind === "text") return stdout(text.push(latin1Bytes(p.data)));
    firstFrame("first frame");
    stdout(text.flush()); // a character cut short by a frame will never be completed
    const m = wire.decodeLauncherMessage(p.body);
    switch (m?.t) {
      case undefined:
        return; // a frame type this mcpx does not know: frame types are an open set
      case "malformed":
        return h.frame({ type: "log", level: "error", message: `mcpx: a malformed frame from the launcher was dropped (${m.why})` });
      case "stderr":
        return h.frame({ type: "stderr", data: m.d });
      case "log":
        return h.frame({ type: "log", level: m.level, message: m.msg });
      case "emit":
        return h.frame({ type: "emit", value: m.v });
      case "call":
        return channel.call(m.id, m.server, m.tool, m.args);
      case "result":
        marker = { ok: true, value: m.u ? undefined : m.v };
        return;
      case "error":
        marker = { ok: false, error: m.e };
        return;
    }
  };
  const onStdout = (s: string) => splitter.push(s).forEach(onPiece);
  const read =
    stdoutFd === undefined
      ? pump(child.stdout as ReadableStream<Uint8Array>, onStdout, "latin1")
      : readSocket(
          stdoutFd,
          (bytes) => {
            if (bytes.length > 0) onStdout(latin1Text(bytes));
            return true;
          },
          // a read error ends the script's output, as the end of the stream does; its exit still decides the run
          () => {},
        ).then((r) => r.ended);
  const stdoutDone = read.then(() => {
    splitter.end().forEach(onPiece);
    stdout(text.flush());
  });
  const oom = new OomWatch();
  const stderrDone = pump(child.stderr as ReadableStream<Uint8Array>, (s) => {
    oom.push(s);
    h.frame({ type: "stderr", data: s });
  });

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
  trace("child exited");
  clearTimeout(timer);
  spec.signal?.removeEventListener("abort", onAbort);
  // whatever the script left behind goes with it, in its group or not: no orphans
  await lineage.end();
  await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(KILL_GRACE_MS + 500)]);
  channel.close();
  if (handoffPath) rmSync(handoffPath, { force: true }); // a sandboxed Deno's handoff file, if it never read it

  if (stopped === "timeout") {
    return {
      ok: false,
      exitCode: exitCodeOf("TIMEOUT"),
      error: {
        name: "TimeoutError",
        code: frameCodeOf("TIMEOUT"),
        message: `the script ran past its timeout of ${spec.timeoutMs}ms (${spec.timeoutFrom ?? "exec.timeout / --timeout"}) and its process group was ended`,
      },
    };
  }
  if (stopped === "interrupted") {
    return {
      ok: false,
      exitCode: exitCodeOf("INTERRUPTED"),
      error: { name: "InterruptedError", code: frameCodeOf("INTERRUPTED"), message: "the run was interrupted and its process group was ended" },
    };
  }
  if (spec.heap && marker?.ok !== true && (oom.seen || isOutOfMemory(marker?.error))) {
    const signal = child.signalCode;
    return {
      ok: false,
      exitCode: signal ? exitCodeOf("EXIT", 128 + (signalNumber(String(signal)) ?? 0)) : code === 0 ? 1 : code,
      error: {
        name: "HeapLimitError",
        code: frameCodeOf("EXIT"),
        message:
          `the script ran out of memory at its heap limit of ${spec.heap.mb} MiB (${spec.heap.from}) and was ended: ` +
          `keep less in memory at once, or raise ${spec.heap.from} where the run is served`,
      },
    };
  }
  if (marker?.ok) return { ok: true, value: marker.value, exitCode: code === 0 ? 0 : code };
  if (marker) return { ok: false, error: marker.error, exitCode: code === 0 ? 1 : code };
  if (code === 0) return { ok: true, value: undefined, exitCode: 0 };
  const signal = child.signalCode;
  return {
    ok: false,
    exitCode: exitCodeOf("EXIT", signal ? 128 + (signalNumber(String(signal)) ?? 0) : code),
    error: { name: "ExitError", code: frameCodeOf("EXIT"), message: signal ? `the script was killed by ${signal}` : `the script exited with code ${code}` },
  };
}

/** JavaScriptCore's allocation failure under the data limit, as the launcher serialized it (Bun) */
function isOutOfMemory(e: SerializedError | undefined): boolean {
  return e !== undefined && e.name === "RangeError" && /out of memory|allocation failed/i.test(e.message);
}

/** whether V8 said on stderr that it ended the process out of memory (Deno, Node), a phrase that may span chunks */
class OomWatch {
  seen = false;
  private tail = "";
  push(s: string): void {
    if (this.seen) return;
    const text = this.tail + s;
    this.seen = /JavaScript (heap )?out of memory|Fatal process out of memory/.test(text);
    this.tail = text.slice(-32);
  }
}

/**
 * A sandboxed run starts from an environment of its own: only what Deno needs to find its cache and
 * the registry, from the serving process's environment, and a DENO_DIR of mcpx's (sandbox-deno-dir.ts).
 * mcpx's own environment (API keys, tokens) is not there at all, and neither is anything the caller
 * set: those variables are set inside the run, after Deno has started (launcher/runtime.ts), so no
 * LD_PRELOAD, DENO_* or allocator variable a caller names can change how the runtime starts.
 */
function sandboxEnv(env: Record<string, string | undefined>, cacheDir: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of SANDBOX_PASS_ENV) if (env[name] !== undefined) out[name] = env[name];
  out.DENO_DIR = sandboxDenoDir(cacheDir, env);
  return out;
}

/** the generated launcher for this run's phases and script, content-addressed in the cache */
function writeLauncher(spec: RunSpec, runtimeFile: string): string {
  const dir = join(spec.cacheDir, "launch");
  const text = fillTemplate({
    runtime: JSON.stringify(Bun.pathToFileURL(runtimeFile).href),
    import: JSON.stringify(Bun.pathToFileURL(spec.scriptPath).href),
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

/**
 * The run, written to a 0600 file in the 0700 socket directory, opened read-write and deleted at
 * once: the launcher receives the open descriptor as fd 3 (HANDOFF_FD), reads it and empties it. Nothing
 * of it is in the environment, which /proc/PID/environ shows for the whole life of a process
 * (decision 0007). Read-write, so that the launcher may empty it through a second opening (Deno).
 */
function handoffFile(path: string, handoff: Handoff, unlink: boolean): number {
  rmSync(path, { force: true });
  writeFileSync(path, JSON.stringify(handoff), { mode: 0o600, flag: "wx" });
  try {
    return openSync(path, "r+");
  } finally {
    // kept for a sandboxed Deno, which is given its path (read only), until its launcher connects
    if (unlink) rmSync(path, { force: true });
  }
}

/**
 * The per-run unix socket; only a client that first sends the run's token gets answers. Each id is
 * answered once: the launcher numbers its calls 1, 2, 3…, so a call frame whose id is not above every
 * id seen before is a forgery or a replay; it is refused (not run, not answered) and said as an error log.
 */
function openChannel(path: string, token: string, h: RunHandlers, onAuthed?: () => void): Channel {
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
        onAuthed?.();
        for (const line of early.splice(0)) s.data.out.write(line);
      },
      drain(s) {
        s.data.out.drain();
      },
    },
  });
  chmodSync(path, 0o600);
  let lastId = 0;
  return {
    call(id, srv, tool, args) {
      if (id <= lastId) {
        const message =
          `mcpx: refused a call frame for ${srv}.${tool} with id ${id}: ids are answered once, in ` +
          `increasing order (the last was ${lastId}); a frame the launcher did not write is never run`;
        return h.frame({ type: "log", level: "error", message });
      }
      lastId = id;
      let sent = false;
      const answer = (a: CallAnswer) => {
        if (sent) return;
        sent = true;
        send(answerLine(id, a));
      };
      h.call(srv, tool, args, answer).then(answer, (err) => answer({ ok: false, error: { name: "Error", message: String(err?.message ?? err) } }));
    },
    close() {
      server.stop(true);
      rmSync(path, { force: true });
    },
  };
}

async function pump(stream: ReadableStream<Uint8Array>, onText: (s: string) => void, encoding: "utf-8" | "latin1" = "utf-8"): Promise<void> {
  if (encoding === "latin1") {
    for await (const chunk of stream) if (chunk.length) onText(latin1Text(chunk));
    return;
  }
  const decoder = new TextDecoder(encoding);
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
