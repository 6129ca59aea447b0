// The host half of one script run: writes the launcher, opens the per-run call channel, starts the
// runtime in its own process group (or takes one started before the run), and hands the run to
// run-watch.ts, which turns what it writes into frames, answers its tool calls, and ends the whole
// group on exit, timeout or cancel. The in-script half is launcher/runtime.ts.

import { closeSync, rmSync } from "node:fs";
import { join } from "node:path";
import { dataLimitMb } from "../process/data-limit.ts";
import { closeFds } from "../process/fd-pairs.ts";
import { Lineage } from "../process/lineage.ts";
import { privateSocketDir } from "../paths/socket-dir.ts";
import { trace } from "../util/trace.ts";
import { servingCalls } from "../util/jit-policy.ts";
import { randomBase64url } from "../util/random-bytes.ts";
// type-only: the wire's code is evaluated from the runtime's own text (loadWire, launcher-files.ts says why)
import type { Handoff } from "../../launcher/wire.ts";
import { handoffFile, openChannel } from "./channel.ts";
import { KINDS, kindOf, type RuntimeShape } from "./kinds.ts";
import { loadWire, runtimeBundle, writeLauncher } from "./launcher-files.ts";
import { discard, FRESH, handOver, spawnRuntime, startRuntime, type SpawnedRuntime } from "./ready-runtime.ts";
import type { RunHandlers, RunOutcome, RunSpec } from "./run-spec.ts";
import { watchRun, type Spawned, type Wire } from "./run-watch.ts";

export type { CallAnswer, RunHandlers, RunOutcome, RunSpec } from "./run-spec.ts";

export async function runScript(spec: RunSpec, h: RunHandlers): Promise<RunOutcome> {
  // the host answers the run's calls from here on: those paths tier up as usual
  servingCalls();
  const nonce = randomBase64url(9);
  const token = randomBase64url(24);
  const runtimeFile = await runtimeBundle(spec.cacheDir, spec.sandbox?.engine === "quickjs" ? "quickjs" : "any");
  const files = { cacheDir: spec.cacheDir, runtimeFile, scriptPath: spec.scriptPath };
  const launcher = writeLauncher(files, spec.phases);
  const sockDir = privateSocketDir(spec.sockDir);
  if (sockDir.note) h.frame({ type: "log", level: "warn", message: sockDir.note });
  const sockPath = join(sockDir.dir, `${spec.runId.slice(0, 12)}.sock`);
  const handoff: Handoff = {
    host: process.pid, // the launcher ends its group when this process is gone (launcher/handoff.ts watchHost)
    sock: sockPath,
    token,
    nonce,
    runId: spec.runId,
    servers: spec.servers,
    script: { path: spec.scriptPath, name: spec.scriptName, args: spec.args, export: spec.export },
  };
  if (spec.sandbox?.engine === "quickjs") {
    // only a run on the embedded engine loads it; it starts no runtime, which a source that guesses learns
    spec.runtimes?.startedWithRun?.();
    const channel = openChannel(sockPath, token, h);
    const [{ runQuickjs }, wire] = await Promise.all([import("./quickjs-run.ts"), loadWire()]);
    // the run's own variables travel with it, as a sandboxed Deno's do; the engine has no environment of its own
    return runQuickjs(spec, h, wire, { ...handoff, env: spec.sandbox.callerEnv }, { launcher, runtimeFile, scriptPath: spec.scriptPath }, channel);
  }
  const shape = readyShape(spec, runtimeFile);
  if (shape) {
    // the wire's decoders load while the runtime starts on its run: its first frame waits in the pipe
    const handed = KINDS[shape.kind].launcher(launcher, files);
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

/**
 * The shape of this run's runtime when it is one started before its run (ready-runtime.ts, kinds.ts shape): every
 * unsandboxed run, Deno's where a pipe can be made for its handoff. Undefined for the others (the
 * sandbox, Deno where no pipe can be made), which are started with their run.
 */
function readyShape(spec: RunSpec, runtimeFile: string): RuntimeShape | undefined {
  if (spec.sandbox) return undefined;
  return KINDS[kindOf(spec.runtime, false)].shape(runtimeFile, {
    cacheDir: spec.cacheDir,
    env: spec.env,
    cwd: spec.cwd,
    stdin: spec.stdin === "inherit" ? "inherit" : "pipe",
    heapMb: spec.heap?.mb ?? 0,
    autoInstall: spec.autoInstall,
  });
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
  // how the launcher reaches the host: the sandbox grants exactly this and no more (sandbox-args.ts channelGrants)
  // A sandboxed Deno may not open /dev/fd/N (Deno asks for --allow-all on it), so it gets the run as a
  // file path on its command line, granted to it alone, which the launcher deletes once read.
  const handoffPath = join(at.sockDir, `${spec.runId.slice(0, 12)}.run`);
  const channelInfo = { sock: sockPath, handoff: spec.sandbox ? handoffPath : `/dev/fd/${at.fd}` };
  // only a sandboxed run loads the sandbox's code
  const sandbox = spec.sandbox && { ...spec.sandbox, args: await import("./sandbox-args.ts") };
  const permissions = sandbox?.args.denoSandboxArgs({
    files: [launcher, runtimeFile, spec.scriptPath],
    channel: sandbox.args.channelGrants(channelInfo),
    callerEnv: Object.keys(sandbox.callerEnv),
    allow: sandbox.allow,
    autoInstall: spec.autoInstall,
  });
  // both are Deno's: the sandbox is, and every other kind is started before its run (readyShape)
  const cmd = KINDS.deno.command(launcher, { autoInstall: spec.autoInstall, heapMb: spec.heap?.mb ?? 0, permissions });
  // the token is in the handoff: a launcher that shows it has read the file, which then goes at once
  const channel = openChannel(sockPath, handoff.token, h, spec.sandbox ? () => rmSync(handoffPath, { force: true }) : undefined);

  // everything the script starts carries the lineage marker, and is ended with the run
  const lineage = new Lineage(spec.runId);
  const env: Record<string, string | undefined> = { ...(sandbox ? sandbox.args.sandboxEnv(spec.env, spec.cacheDir) : spec.env), ...cmd.env, ...lineage.env() };

  let spawned: SpawnedRuntime;
  // a sandboxed script's variables travel with the run and are set inside it (launcher/handoff.ts)
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
