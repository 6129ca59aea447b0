// The hook gate: for one point and phase, runs the matching hooks in declaration order (then the
// hook tools of allowlisted MCP servers, called in parallel and merged in config order), clamps each
// hook's output by the dial, and returns one decision. Every hook that ran yields a hook frame; a
// failing hook publishes hook.failed and the operation carries on, unless it fails closed.

import { runHookAction } from "./actions/run-action.ts";
import { hookCallers } from "./call-chain.ts";
import { effectiveLevel, applyDial } from "./dial.ts";
import { hookMatches } from "./match.ts";
import { runContext } from "./run-context.ts";
import { POINTS, type Level, type Phase, type PointName, type PointSpec } from "./points.ts";
import type { Decision, Gate, HookFrameBody, Payload } from "./types.ts";
import type { HookDecision } from "../telemetry/tap.ts";

/** the value an `apply` replaces at each phase, read from and written to the payload */
const SUBJECT: Record<string, (p: Payload) => { get(): unknown; set(v: unknown): void }> = {
  "call.before": (p) => ({ get: () => p.call!.arguments, set: (v) => (p.call!.arguments = v as Record<string, unknown>) }),
  "script.before": (p) => ({ get: () => p.script!.args, set: (v) => (p.script!.args = v as string[]) }),
  "prompt.get.before": (p) => ({ get: () => p.prompt!.arguments, set: (v) => (p.prompt!.arguments = v as Record<string, string>) }),
};
const resultSubject = (p: Payload) => ({ get: () => p.result, set: (v: unknown) => (p.result = v) });
/** at onError an apply recovers: what it replaced (the frame's `original`) is the error */
const recoverySubject = (p: Payload) => ({ get: () => p.error, set: (v: unknown) => (p.result = v) });

/** @param retriesLeft at onError: how many more attempts hooks.retryBudget allows; a retry asked for beyond it is dropped and reported */
export async function runGate(
  gate: Gate,
  point: PointName,
  phase: Phase,
  payload: Payload,
  emit: (f: HookFrameBody) => void,
  retriesLeft = 0,
): Promise<Decision> {
  const decision: Decision = { replaced: false, retry: false, advice: [] };
  // agent.stop hears every hook: a refusal is one objection among others, not the end of the phase
  const hearsAll = (POINTS[point] as PointSpec).hearsEveryObjection === true;
  if (hearsAll) decision.objections = [];
  const refuse = (r: { hook: string; reason: string }) => {
    decision.refused ??= r;
    decision.objections?.push(r);
  };
  const match = matchContextOf(payload);
  const subject = (SUBJECT[`${point}.${phase}`] ?? (phase === "onError" ? recoverySubject : resultSubject))(payload);

  const settle = (
    hook: { name: string; on: string; effect: Level; failure: "open" | "closed"; action: string; perRunCap?: Level },
    out: { output?: Record<string, unknown>; failure?: string; skipped?: string; durationMs: number },
  ): HookFrameBody => {
    const eff = effectiveLevel(hook.effect, phase, gate.policy.autonomy, gate.policy.max, hook.perRunCap);
    const level = eff.level;
    const frame: HookFrameBody = { on: point, phase, name: hook.name, action: hook.action, effect: level, durationMs: out.durationMs, changed: false };
    if (out.skipped !== undefined) frame.skipped = out.skipped;
    if (out.failure !== undefined) {
      frame.failed = out.failure;
      gate.hookFailed({ hook: hook.name, point, phase, reason: out.failure, runId: payload.runId }, match);
      if (hook.failure === "closed") refuse({ hook: hook.name, reason: `hook failed and fails closed: ${out.failure}` });
      emit(frame);
      return frame;
    }
    // the whole effective level, so a dropped key says which clamp lowered it
    const { kept, dropped } = applyDial(out.output ?? {}, eff, point, phase);
    if (dropped.length) frame.dropped = dropped;
    if (typeof kept.advise === "string" || Array.isArray(kept.advise)) {
      frame.advice = ([] as unknown[]).concat(kept.advise).map(String);
      decision.advice.push(...frame.advice);
    }
    if (kept.propose !== undefined) frame.proposed = kept.propose;
    if (kept.apply !== undefined) {
      frame.original = subject.get();
      subject.set(kept.apply);
      decision.value = kept.apply;
      decision.replaced = true;
      frame.changed = true;
    }
    if (kept.run === "retry") {
      if (retriesLeft > 0) decision.retry = frame.retry = true;
      else frame.dropped = [...(frame.dropped ?? []), `run: retry budget used up (hooks.retryBudget ${gate.policy.retryBudget})`];
    }
    if (kept.refuse !== undefined || kept.ask !== undefined)
      pendingAsk.push({ hook: hook.name, reason: String(kept.refuse ?? kept.ask), ask: kept.refuse === undefined });
    emit(frame);
    return frame;
  };
  const pendingAsk: Array<{ hook: string; reason: string; ask: boolean }> = [];

  // what the last settled hook's refuse or ask came to: asked and allowed, or refused (with why)
  const resolveRefusals = async (): Promise<{ decision: "ask" | "refuse"; reason: string } | undefined> => {
    let said: { decision: "ask" | "refuse"; reason: string } | undefined;
    for (const r of pendingAsk.splice(0)) {
      if (decision.refused && !hearsAll) return said;
      const answer =
        r.ask && gate.ask
          ? await gate.ask(`${r.hook} asks: ${r.reason}. Allow ${point}${match.server ? ` ${match.server}.${match.tool ?? ""}` : ""}?`, { point, phase })
          : undefined;
      if (answer) {
        said = { decision: "ask", reason: r.reason };
        continue;
      }
      const reason = r.ask && answer === undefined ? `${r.reason} (asked, and nobody can answer here)` : r.reason;
      refuse({ hook: r.hook, reason });
      said = { decision: "refuse", reason };
    }
    return said;
  };
  // each hook's outcome to the telemetry tap, once its refusal or ask is settled
  const tell = (frame: HookFrameBody, failure: "open" | "closed", said: { decision: "ask" | "refuse"; reason: string } | undefined) => {
    const tap = gate.tap;
    if (!tap) return;
    const outcome = hookDecision(frame, failure, said?.decision);
    const store = runContext.getStore();
    tap.hook({
      runId: payload.runId ?? store?.runId,
      ...(store?.door ? { door: store.door } : {}),
      point,
      phase,
      name: frame.name ?? frame.on,
      action: frame.action,
      effect: frame.effect,
      decision: outcome,
      ...(frame.dropped ? { dropped: frame.dropped } : {}),
      ...(match.server !== undefined ? { server: match.server } : {}),
      ...(match.tool !== undefined ? { tool: match.tool } : {}),
      ...(frame.failed !== undefined ? { failed: frame.failed } : {}),
      ...(said?.decision === "refuse" ? { reason: said.reason } : {}),
      durationMs: frame.durationMs,
    });
  };

  for (const hook of gate.hooks) {
    if (!hookMatches(hook, point, phase, match)) continue;
    const started = performance.now();
    const input = { point, phase, hook: hook.name, ...payload };
    // the hook's own calls pass the call point, with this hook out of their chain (call-chain.ts);
    // their call frames go to the run's stream where there is one
    const callers = hookCallers(gate, hook, payload.runId, { hook: emit, frame: runContext.getStore()?.frame });
    const out = await runHookAction(hook, phase, input, { ...gate.host, ...callers, point, timeoutMs: hook.timeoutMs ?? gate.policy.defaultTimeoutMs });
    const frame = settle(
      { name: hook.name, on: hook.on, effect: hook.effect, failure: hook.failure, action: hook.action.kind, perRunCap: hook.perRunCap },
      { ...out, durationMs: ms(started) },
    );
    tell(frame, hook.failure, await resolveRefusals());
    if (decision.refused && !hearsAll) return decision; // a refusal ends the phase: the operation will not happen
  }

  // hook tools of allowlisted servers: in parallel, merged in config order
  for (const r of await gate.hookTools.call(point, phase, payload, gate.policy)) {
    const frame = settle({ name: `${r.server}.${r.tool}`, on: point, effect: r.effect, failure: "open", action: "plugin" }, r);
    tell(frame, "open", await resolveRefusals());
    if (decision.refused && !hearsAll) return decision;
  }
  return decision;
}

/** what a hook's `when` is matched against for a payload: `mcpx hooks explain` uses it too, so it explains what runs */
export function matchContextOf(payload: Payload): { server?: string; tool?: string; uri?: string } {
  const server = payload.call?.server ?? payload.server?.name ?? payload.resource?.server ?? payload.prompt?.server;
  return { server, tool: payload.call?.tool, ...(payload.resource ? { uri: payload.resource.uri } : {}) };
}

/**
 * true when no hook can fire at this point for this server and tool (no configured hook matches it
 * in any phase, and no server is allowlisted for hook tools), so the caller may skip the gate's
 * phases altogether: hooks that match other calls then cost a call nothing.
 */
export function gateIsEmpty(gate: Gate, point: PointName = "call", match: { server?: string; tool?: string; uri?: string } = {}): boolean {
  if (gate.policy.hookServers.all || gate.policy.hookServers.names.length > 0) return false;
  return !gate.hooks.some((h) => hookMatches(h, point, h.phase, match));
}

/**
 * What one hook did to its operation (lib/telemetry/tap.ts HOOK_DECISIONS), from its frame and how
 * its refuse or ask was settled: the strongest thing it did, so a hook that advised and refused is a
 * refusal. A hook that failed closed refused; one that failed open let the operation go on.
 */
export function hookDecision(frame: HookFrameBody, failure: "open" | "closed", said?: "ask" | "refuse"): HookDecision {
  if (frame.failed !== undefined) return failure === "closed" ? "refuse" : "fail";
  if (said) return said;
  if (frame.retry) return "retry";
  if (frame.changed) return "apply";
  if (frame.proposed !== undefined) return "propose";
  if (frame.advice?.length) return "advise";
  if (frame.skipped !== undefined) return "skip";
  return "allow";
}

function ms(since: number): number {
  return Math.round((performance.now() - since) * 100) / 100;
}
