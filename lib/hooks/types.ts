// The gate's shapes, in a leaf that imports no runtime code: what a gate holds, what a hook is
// given (Payload), what the gate decides (Decision), the hook frame it reports, and the narrow
// context an action runs with. The decider (gate.ts), the actions and the hook-tool caller all
// import from here and never from each other's files, so none of them can form an import cycle.

import type { EventContext } from "../events/event.ts";
import type { EventData, EventKind } from "../events/kinds.ts";
import type { ModelConfig } from "./actions/prompt.ts";
import type { Hook } from "./hook.ts";
import type { Level, Phase, PointName } from "./points.ts";
import type { GatePolicy } from "./policy.ts";
import type { Tap } from "../telemetry/tap.ts";

/** what the hook receives on stdin, beside point and phase */
export interface Payload {
  runId?: string;
  script?: { path: string; name: string; args: string[]; export?: string };
  call?: { server: string; tool: string; arguments: Record<string, unknown>; annotations?: Record<string, unknown> };
  server?: { name: string; kind: string; command?: string; url?: string };
  resource?: { server: string; uri: string };
  prompt?: { server: string; name: string; arguments: Record<string, string> };
  result?: unknown;
  error?: { name: string; message: string; code?: string };
  tools?: number;
  /** the script point's onSuccess, onError and suffix: the artifacts the run made, in order (lib/artifacts) */
  artifacts?: Array<{ id: string; name: string; mime: string; size: number; sha256: string; uri: string }>;
}

export interface Decision {
  refused?: { hook: string; reason: string };
  /** at a point that hears every objection (agent.stop): every refusal, in order; `refused` is the first */
  objections?: Array<{ hook: string; reason: string }>;
  /** the replaced value (arguments, result, recovery value or script args) when `replaced` */
  value?: unknown;
  replaced: boolean;
  retry: boolean;
  advice: string[];
}

/** one hook that ran, as the frame stream reports it (`{type: "hook", ...}` in lib/exec/frames.ts) */
export interface HookFrameBody {
  on: string;
  phase: string;
  name?: string;
  action: string;
  effect: string;
  durationMs: number;
  changed: boolean;
  original?: unknown;
  advice?: string[];
  dropped?: string[];
  failed?: string;
  /** the hook did not run, and why (a prompt hook with no model configured): not a failure, and not silent */
  skipped?: string;
  /** a propose key's value: reported, never used */
  proposed?: unknown;
  /** an onError hook asked to run the operation again; its frames follow (the order guard allows it) */
  retry?: boolean;
  /** the hooks whose actions made the call this hook ran for, outermost first (lib/hooks/call-chain.ts) */
  by?: string[];
}

/** one tool call's answer from the call point (lib/runtime/run-spec.ts CallAnswer is this shape) */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: { name: string; message: string; code?: string } };

/** a module hook's run: the value its script returned, or why it did not return one */
export type ModuleOutcome = { ok: true; value: unknown } | { ok: false; message: string };

/** where the frames of a hook's own calls go (a run's stream, tagged with the hook: lib/hooks/call-chain.ts) */
export interface FrameSink {
  push(frame: { type: string }): void;
}

/**
 * What a hook action's tool calls go through, handed to the gate by the process that owns it (the
 * engine's opener), since lib/hooks cannot import the exec path that holds the call point.
 */
export interface HookCalls {
  /** the gate's call point (lib/exec/gated-call.ts callThroughGate): a hook's call passes it like any other */
  call(gate: Gate, req: { runId?: string; server: string; tool: string; args: Record<string, unknown> }, sink: FrameSink): Promise<CallOutcome>;
  /** a module hook's script through the one exec path with `gate`, in-process (lib/exec/module-hook.ts) */
  module(
    gate: Gate,
    req: { path: string; stdin: string; env: Record<string, string | undefined>; cwd: string; timeoutMs: number },
    sink: FrameSink,
  ): Promise<ModuleOutcome>;
}

/** what the process gives every action: where it runs and what it may reach, the same for every hook */
export interface ActionHost {
  /** starts a plugin action's server when it is not running (its calls go through ActionContext.call) */
  startServer(name: string): Promise<void>;
  env: Record<string, string | undefined>;
  cwd: string;
  model?: ModelConfig;
  warn(message: string): void;
}

/** everything one action may use: the host plus this hook's timeout and the point it fires at */
export interface ActionContext extends ActionHost {
  timeoutMs: number;
  /** the point, or for an observe hook the event kind it is observing */
  point: PointName | EventKind;
  /** a tool call made by this hook, through the gate's call point (lib/hooks/call-chain.ts) */
  call(server: string, tool: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** this module hook's script, run through the exec path with the gate its calls pass */
  runModule(path: string, stdin: string, env: Record<string, string | undefined>): Promise<ModuleOutcome>;
  /** aborted when the hook must end before its timeout: an observer still running when its command ends (observe.ts) */
  signal?: AbortSignal;
}

/** one `_` hook tool's answer, in config order (lib/hooks/mcp-hook-calls.ts) */
export interface HookToolResult {
  server: string;
  tool: string;
  effect: Level;
  output?: Record<string, unknown>;
  failure?: string;
  durationMs: number;
}

/** calls the `_` hook tools of allowlisted servers at a point and phase (lib/hooks/mcp-hook-calls.ts) */
export interface HookToolCaller {
  call(point: PointName, phase: Phase, payload: Payload, policy: GatePolicy): Promise<HookToolResult[]>;
}

/**
 * What runGate decides over: the hooks in force and the policy that bounds them, plus the means the
 * decision needs (the actions' host, the hook-tool caller, someone to ask). It holds neither the pool
 * nor the bus: the engine owns both, and a call's caller hands them to the call point beside the gate.
 * A run's gate is a view on the process's gate (gateForRun), so `hooks` is read live.
 */
export interface Gate {
  /** read live: a plugin's hooks are in force exactly while its server lives */
  readonly hooks: readonly Hook[];
  policy: GatePolicy;
  /** told each hook that failed, for the engine to publish as hook.failed */
  hookFailed(data: EventData<"hook.failed">, where: EventContext): void;
  /** what every action runs with (the per-hook timeout and the point are added by the gate) */
  host: ActionHost;
  hookTools: HookToolCaller;
  /** asks a person yes/no; absent, or answering undefined, where nobody can answer, and then `ask` refuses */
  ask?: (question: string, where?: { point: PointName; phase: Phase }) => Promise<boolean | undefined>;
  /** settles when the hooks that arrive with plugin servers are in force; every door awaits it */
  ready?: Promise<void>;
  /** how hook actions call tools and run modules; absent (a bare test gate), a hook's call fails and never skips the gate */
  calls?: HookCalls;
  /**
   * the hooks whose actions made the call this gate view serves, outermost first (lib/hooks/call-chain.ts):
   * they are not run again for it, and its length is bounded by MAX_HOOK_CALL_DEPTH
   */
  readonly chain?: readonly Hook[];
  /** a run that may pause for a person's yes: its calls are logged and replayed (lib/approvals/call-log.ts callLogOf reads it) */
  readonly callLog?: unknown;
  /**
   * who listens at the instrumentation points (lib/telemetry/tap.ts): each run, each upstream call and
   * each hook that ran are told to it. Absent, nobody listens and the points pay nothing more.
   */
  readonly tap?: Tap;
}
