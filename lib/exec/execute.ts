// The one exec path: ExecOptions in, an async stream of frames out, in the order of design §3.
// The CLI, /v1/exec and mcpx_exec all render this stream; nothing else starts a script. The script
// point's out-of-script hooks run here; the call point's run in gated-call.ts.

import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { namespaceBindings } from "../codegen/identifiers.ts";
import { exitCodeOf, frameCodeOf } from "../errors/codes.ts";
import { frameError } from "../errors/frame-error.ts";
import { runGate } from "../hooks/gate.ts";
import { settleOutcome } from "../hooks/recovery.ts";
import type { Gate, Payload } from "../hooks/types.ts";
import { runContext } from "../hooks/run-context.ts";
import { gateForRun } from "../hooks/build-gate.ts";
import { perRunHooks } from "../hooks/declared-hooks.ts";
import { writeContentFile } from "../paths/content-file.ts";
import type { EngineParts } from "../session/engine.ts";
import { PushQueue } from "../util/frame-queue.ts";
import type { Frame, HookFrameBody, SerializedError } from "./frames.ts";
import { callThroughGate } from "./gated-call.ts";
import { featureThroughGate } from "./gated-feature.ts";
import type { FeatureOp } from "../mcp/server-features.ts";
import { withHiddenNamespaceNote } from "../codegen/hidden-namespace.ts";
import type { ExecOptions } from "./options-schema.ts";
import { runSettingValues } from "./options.ts";
import { checkPhases } from "./phase-check.ts";
import { snippetModule } from "../runtime/snippet.ts";
import { phaseLines, type PhaseOrigins } from "./phase-origins.ts";
import { runScript, type CallAnswer, type RunOutcome, type RunSpec } from "../runtime/runner.ts";
import type { WorkspaceData } from "../runtime/run-spec.ts";
import type { WorkspaceOp } from "../../launcher/wire.ts";
import { scriptEnv } from "../runtime/script-env.ts";
import type { RuntimeSource } from "../runtime/ready-runtime.ts";
import { sandboxEngine } from "./sandbox-engine.ts";
import { decideSandbox, type RunLimits, type SandboxContext } from "./door-policy.ts";
import { stricterLimit } from "../hooks/policy.ts";
import type { CallNotes } from "../mcp/server-notes.ts";
import { newWorkspace, type Workspace } from "../workspace/workspace.ts";
import { newRunArtifacts, type ArtifactUri, type RunArtifacts } from "../artifacts/run-artifacts.ts";
import { artifactChunks } from "./artifact-chunks.ts";
import { CALLER_OF_DOOR, type RunSpan, type TraceCarrier } from "../telemetry/tap.ts";

const MiB = 1024 * 1024;

export interface ExecContext {
  /** the pool the run's calls go to and the bus its events go on */
  engine: EngineParts;
  /** what decides about the run and each of its calls (a view of the engine's gate, for a served request or a hook) */
  gate: Gate;
  /** the environment the script starts from, before ExecOptions.env */
  env: Record<string, string | undefined>;
  cacheDir: string;
  sockDir: string;
  /** the CLI hands the script its own stdin; the daemon never does */
  inheritStdin: boolean;
  cwd: string;
  signal?: AbortSignal;
  /** the serving process's exec.sandbox (with the door the run came through), exec.sandboxAllow and exec.autoInstall */
  sandbox: SandboxContext;
  /** where each line of opts.script came from, named by an error the line throws (phase-origins.ts) */
  phaseOrigins?: Partial<PhaseOrigins>;
  /** runtimes started before the run (the CLI's early one, the daemon's kept one); without it a run starts its own */
  runtimes?: RuntimeSource;
  /** the door's time, memory and file bounds (door-policy.ts runLimits) */
  limits: RunLimits;
  /** the agent session's workspace (lib/mcpserver/agent-session.ts); absent: the run has its own, removed when it ends */
  workspace?: Workspace;
  /** the uri an artifact is fetched at (the daemon's /v1/artifacts/ID, which it then serves); absent: its file:// URL */
  artifactUri?: ArtifactUri;
  /** the caller's W3C trace context, where its door carried one (lib/telemetry/trace-carrier.ts): the run's span continues it */
  traceParent?: TraceCarrier;
}

export function execute(opts: ExecOptions, ctx: ExecContext): AsyncIterable<Frame> {
  const q = new PushQueue<Frame>();
  // server.start hooks fired by this run's calls report into this run's stream, and so do the calls its hooks make
  // the run's id is made here, so that what its calls start (server.start hooks) can name the run
  const runId = crypto.randomUUID();
  const ended = new AbortController();
  const door = ctx.sandbox.policy.door;
  // told the run's start now and its end from the end frame, whichever way the run ends
  const span = openRunSpan(ctx, runId, opts.runtime);
  void runContext
    .run({ runId, door, hookFrame: (f) => q.push({ type: "hook", ...f }), frame: (f) => q.push(f as Frame) }, () => run(opts, ctx, q, runId, ended, span))
    .catch((err) => {
      // a bug here must still end the stream with exactly one error and an end
      q.push({ type: "error", error: frameError("INTERNAL", String((err as Error)?.stack ?? err)) });
      q.push({ type: "end", exitCode: exitCodeOf("INTERNAL"), durationMs: 0 });
      span?.end({ ok: false, exitCode: exitCodeOf("INTERNAL"), durationMs: 0 });
    })
    .finally(() => {
      ended.abort();
      q.close();
    });
  // a source that makes runtimes ahead (the daemon's) makes the next once this run is delivered
  return ctx.runtimes?.runDelivered ? delivered(q, ctx.runtimes) : q;
}

/** the run's frames, and once its door has taken the last (or stopped taking them), the runtime source told */
async function* delivered(frames: AsyncIterable<Frame>, runtimes: RuntimeSource): AsyncIterable<Frame> {
  try {
    yield* frames;
  } finally {
    runtimes.runDelivered?.();
  }
}

/** the run's span at the telemetry tap, ended once (a bug after the run's own end must not end it twice) */
function openRunSpan(ctx: ExecContext, runId: string, runtime: string | undefined): RunSpan | undefined {
  const tap = ctx.gate.tap;
  if (!tap) return undefined;
  const door = ctx.sandbox.policy.door;
  const span = tap.run({ runId, door, caller: CALLER_OF_DOOR[door], runtime: runtime ?? "auto", ...(ctx.traceParent ? { parent: ctx.traceParent } : {}) });
  let open = true;
  return {
    end(info) {
      if (!open) return;
      open = false;
      span.end(info);
    },
  };
}

/**
 * What the run's calls are handed (lib/mcp/server-notes.ts): their servers' logs and their progress
 * become frames, until the script is done. Then `ended` is aborted, which cancels upstream what its
 * calls still have in flight (a timeout, an interrupt, a script that did not wait for a call), and the
 * frames of such calls are no longer the run's: one that came would stand after its result.
 */
function runNotes(q: PushQueue<Frame>, ended: AbortController): { notes: CallNotes; calls: Pick<PushQueue<Frame>, "push">; settle(): void } {
  const over = ended.signal;
  return {
    notes: {
      log: (l) => over.aborted || q.push({ type: "log", level: l.level, message: l.message, server: l.server, ...(l.logger ? { logger: l.logger } : {}) }),
      progress: (server, tool, p) => over.aborted || q.push({ type: "progress", server, tool, ...p }),
      signal: over,
    },
    calls: { push: (f) => over.aborted || q.push(f) },
    settle: () => ended.abort(),
  };
}

async function run(opts: ExecOptions, ctx: ExecContext, q: PushQueue<Frame>, runId: string, ended: AbortController, span?: RunSpan): Promise<void> {
  const started = performance.now();
  const hookFrame = (f: HookFrameBody) => q.push({ type: "hook", ...f });
  q.push({ type: "start", runId });
  await ctx.gate.ready;
  const end = (exitCode: number) => {
    const durationMs = Math.round(performance.now() - started);
    q.push({ type: "end", exitCode, durationMs });
    span?.end({ ok: exitCode === 0, exitCode, durationMs });
  };
  const usage = (message: string) => {
    q.push({ type: "error", error: frameError("USAGE", message) });
    end(exitCodeOf("USAGE"));
  };

  const cwd = opts.cwd ? resolve(ctx.cwd, opts.cwd) : ctx.cwd;
  const bad = checkPhases(opts.script, ctx.phaseOrigins);
  if (bad) return usage(bad);
  const sandbox = decideSandbox(opts.sandbox, ctx.sandbox.policy);
  if (!sandbox.ok) return usage(sandbox.message);
  if (sandbox.on && (opts.runtime === "bun" || opts.runtime === "node")) {
    return usage(
      `runtime ${opts.runtime} was asked for, but this run is sandboxed ` +
        `(exec.sandbox ${opts.sandbox ?? ctx.sandbox.policy.setting}), and the sandbox is the embedded QuickJS or Deno: ` +
        `use runtime auto (exec.sandboxEngine decides) or deno, or leave the sandbox only where that is allowed (--sandbox off, MCPX_EXEC_SANDBOX=off)`,
    );
  }
  const engine = sandbox.on ? sandboxEngine(opts.runtime, ctx.sandbox) : undefined;
  if (engine && !engine.ok) return usage(engine.message);
  // this run's own script hooks after the ones in force (they may only lower effects), and its own
  // settings where they are stricter than this process's (build-gate.ts)
  let gate: Gate;
  try {
    gate = gateForRun(ctx.gate, opts.hooks.length > 0 ? perRunHooks(opts.hooks, cwd, ctx.env) : [], runSettingValues(opts.settings ?? {}) as never);
  } catch (err) {
    return usage((err as Error).message);
  }
  let scriptPath: string;
  if (opts.file !== undefined) {
    scriptPath = resolve(cwd, opts.file);
    if (!existsSync(scriptPath)) return usage(`script file not found: ${scriptPath}`);
  } else {
    // exec snippets are files too, so every phase applies to them exactly as to a file script
    scriptPath = writeContentFile(join(ctx.cacheDir, "snippets"), "snippet-", ".ts", snippetModule(opts.source ?? ""));
  }
  const scriptName = opts.name ?? (opts.file !== undefined ? basename(scriptPath).replace(/\.[^.]+$/, "") : "exec");
  const payload: Payload = { runId, script: { path: scriptPath, name: scriptName, args: [...opts.args], export: opts.export } };

  const before = await runGate(gate, "script", "before", payload, hookFrame);
  if (before.refused) {
    const error = frameError("REFUSED", `the script was refused by hook ${before.refused.hook}: ${before.refused.reason}`, before.refused);
    q.push({ type: "error", error });
    // suffix is a finally: it sees the refusal as the outcome, as call.suffix does for a refused call
    await runGate(gate, "script", "suffix", { ...payload, error: { name: error.name, message: error.message, code: error.code } }, hookFrame);
    return end(exitCodeOf("REFUSED"));
  }
  if (before.replaced && !isStringArray(payload.script!.args)) {
    return usage(`hook replaced the script's args with ${JSON.stringify(payload.script!.args)}: apply at script.before takes an array of strings`);
  }
  ctx.engine.bus.publish("script.started", { runId, script: scriptPath });

  // broken entries get their namespace too, so a script that uses one gets the entry's error, not a ReferenceError
  const bindings = namespaceBindings([...ctx.engine.pool.names(), ...ctx.engine.pool.brokenNames()]);
  const servers = bindings.map((b) => ({
    name: b.name,
    global: b.hiddenBecause ? null : b.identifier,
  }));
  const doorTimeoutMs = ctx.limits.timeoutMs;
  const timeoutMs = stricterLimit(opts.timeoutMs, doorTimeoutMs);
  const spec: RunSpec = {
    runId,
    scriptPath,
    scriptName,
    args: payload.script!.args,
    export: opts.export,
    phases: phaseLines(opts.script, ctx.phaseOrigins),
    runtime: opts.runtime,
    timeoutMs,
    // the door's limit is named only when it is the one that applies
    timeoutFrom: doorTimeoutMs && timeoutMs === doorTimeoutMs ? ctx.limits.timeoutFrom : undefined,
    heap: ctx.limits.heapMb ? { mb: ctx.limits.heapMb, from: ctx.limits.heapFrom } : undefined,
    // a sandboxed run's variables are a view inside it (RunSpec.sandbox.callerEnv), never its runtime's environment
    env: scriptEnv(ctx.env, sandbox.on ? {} : opts.env),
    cwd,
    stdin: opts.stdin ?? (ctx.inheritStdin ? "inherit" : ""),
    servers,
    cacheDir: ctx.cacheDir,
    sockDir: ctx.sockDir,
    signal: ctx.signal,
    autoInstall: ctx.sandbox.autoInstall,
    sandbox: engine?.ok ? { allow: ctx.sandbox.allow, callerEnv: opts.env, engine: engine.engine } : undefined,
    callerEnv: Object.keys(opts.env).length > 0,
    runtimes: ctx.runtimes,
  };
  const { notes, calls, settle } = runNotes(q, ended);
  const artifacts = newRunArtifacts(join(ctx.cacheDir, "artifacts"), runId, ctx.limits.artifactsMaxMb * MiB, ctx.artifactUri);
  // made at its first write, so a run that never uses it pays nothing
  const workspace = ctx.workspace ?? newWorkspace(join(ctx.cacheDir, "workspaces"), ctx.limits.workspaceQuotaMb * MiB);
  const handlers = {
    frame: (f: Frame) => q.push(f),
    call: (server: string, tool: string, args: Record<string, unknown>, answered: (answer: CallAnswer) => void) =>
      callThroughGate(ctx.engine, gate, { runId, server, tool, args, notes }, calls, answered),
    feature: (op: FeatureOp, server: string, target: string, args: Record<string, string>) =>
      featureThroughGate(ctx.engine, gate, { runId, op, server, target, args }, calls),
    workspace: (op: WorkspaceOp, name: string, data: WorkspaceData) => workspace.op(op, name, data),
    artifact: artifacts,
  };

  // the exit code of the last attempt, unless the hooks settled the run otherwise
  let exitCode = 0;
  let startFailure = "";
  const result = await settleOutcome<SerializedError>(
    gate,
    "script",
    payload,
    hookFrame,
    async () => {
      let outcome: RunOutcome;
      try {
        outcome = await runScript(spec, handlers);
      } catch (err) {
        startFailure = String((err as Error).message ?? err);
        return undefined;
      }
      exitCode = outcome.exitCode;
      announceArtifacts(artifacts, q, payload);
      return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: withHiddenNamespaceNote(outcome.error!, bindings) };
    },
    {
      refused: (r) => frameError("RESULT_REFUSED", `the result was refused by hook ${r.hook}: ${r.reason}`, r),
      recovered: (value) => value,
      final: (error) => error.code === frameCodeOf("INTERRUPTED"),
    },
  );
  settle();
  // a run's own workspace ends with the run (a retry's attempt still saw it); a session's outlives the run
  if (!ctx.workspace) workspace.close();
  if (!result) return usage(startFailure);
  if (result.ok && result.recovered) exitCode = 0;
  if (!result.ok && result.refused) exitCode = exitCodeOf("RESULT_REFUSED");

  // undefined has no JSON form: a run that returned nothing has the value null on every surface
  q.push(result.ok ? { type: "result", value: result.value ?? null } : { type: "error", error: result.error });
  if (result.ok) payload.result = result.value;
  await runGate(gate, "script", "suffix", payload, hookFrame);
  const durationMs = Math.round(performance.now() - started);
  ctx.engine.bus.publish("script.finished", { runId, ok: result.ok, exitCode, durationMs });
  end(exitCode);
  // delivery "stream": the artifacts' bytes follow end, each in order and closed by its own end (decision 0001)
  if (opts.delivery === "stream") for (const a of artifacts.all()) for (const f of artifactChunks(a, artifacts.pathOf(a.id)!)) q.push(f);
}

/**
 * The artifacts this attempt of the script closed, as frames in the order it made them, after its
 * output and before the onSuccess/onError hooks, which see them all in their payload; one it began
 * and never closed (it threw, or ended, meanwhile) is said, and its bytes are not kept.
 */
function announceArtifacts(artifacts: RunArtifacts, q: PushQueue<Frame>, payload: Payload): void {
  for (const name of artifacts.end())
    q.push({ type: "log", level: "warn", message: `artifact ${JSON.stringify(name)} was not finished when the script ended: it was not kept` });
  for (const a of artifacts.take()) q.push({ type: "artifact", ...a });
  const all = artifacts.all();
  if (all.length) payload.artifacts = all;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}
