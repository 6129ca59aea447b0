// A hook's own tool calls pass the gate's call point like any other call (design §7), so a call hook
// that calls a tool could fire itself again without end. The re-entry rule: a hook already running
// in the current chain (the hooks whose actions led to this call, outermost first) is skipped for
// the calls it makes, directly or through other hooks; every other hook, and every `_` hook tool,
// still gates them. The chain lives on a view of the gate (not in ambient state), so it follows the
// call through every await and into a module hook's in-process run, and a per-run hook cannot
// name itself into someone else's chain: hooks are compared by identity, never by name.

import { callError } from "../errors/frame-error.ts";
import type { Hook } from "./hook.ts";
import type { ActionContext, CallOutcome, FrameSink, Gate, HookFrameBody } from "./types.ts";

/**
 * How many hook actions deep a call may be made (a hook's call, whose hook calls, …). The re-entry
 * rule already ends any loop within as many levels as there are hooks; this bound keeps a long
 * chain of distinct hooks from nesting past what anyone means, and says so. Fixed by design
 * (docs/decisions/0016); change it only with that record and test/e2e/gate-reentry.test.ts.
 */
export const MAX_HOOK_CALL_DEPTH = 4;

/** the gate a call made by `hook`'s action passes: `gate` with the chain so far and `hook` left out */
function gateForHookCall(gate: Gate, hook: Hook): Gate {
  const chain = [...(gate.chain ?? []), hook];
  return Object.create(gate, {
    hooks: { get: () => gate.hooks.filter((h) => !chain.includes(h)) },
    chain: { value: chain },
  }) as Gate;
}

/** the chain of the hook-made call each call.finished event reports, for the observers (observe.ts) */
const eventChains = new WeakMap<object, readonly Hook[]>();

/** remembers that the event data `data` is of a call made through `gate` (a hook's call, when gate has a chain) */
export function noteEventChain(data: object, gate: Gate): void {
  if (gate.chain?.length) eventChains.set(data, gate.chain);
}

/** the chain of hooks whose actions made the call an event reports; undefined for any other event */
export function chainOfEvent(data: unknown): readonly Hook[] | undefined {
  return typeof data === "object" && data !== null ? eventChains.get(data) : undefined;
}

/** where a hook's calls report: their hook frames beside the hook's own, their call frames into the run's stream (when there is one) */
export interface HookSinks {
  hook(f: HookFrameBody): void;
  frame?: (f: { type: string }) => void;
}

/** the call and runModule an action gets: both through the gate view of gateForHookCall, their frames tagged `by` the hook */
export function hookCallers(gate: Gate, hook: Hook, runId: string | undefined, sinks: HookSinks): Pick<ActionContext, "call" | "runModule"> {
  const view = gateForHookCall(gate, hook);
  const by = view.chain!.map((h) => h.name);
  const sink: FrameSink = {
    push(f) {
      if (f.type === "hook") {
        const { type: _t, ...body } = f as { type: "hook" } & HookFrameBody;
        sinks.hook({ ...body, by });
      } else sinks.frame?.({ ...f, by } as { type: string });
    },
  };
  const tooDeep = (): string | undefined =>
    view.chain!.length > MAX_HOOK_CALL_DEPTH
      ? `hook ${hook.name}'s call is ${view.chain!.length} hook actions deep (${by.join(" > ")}), past MAX_HOOK_CALL_DEPTH ` +
        `(${MAX_HOOK_CALL_DEPTH}): a hook's call may fire other hooks, which may call in turn, only that deep`
      : undefined;
  const noCalls = `hook ${hook.name} cannot call tools here: this process gave the gate no call point, and a call never skips the gate`;
  return {
    call(server, tool, args): Promise<CallOutcome> {
      const deep = tooDeep();
      if (deep) return Promise.resolve({ ok: false, error: callError("CALL_REFUSED", deep) });
      if (!view.calls) return Promise.resolve({ ok: false, error: callError("CALL_REFUSED", noCalls) });
      return view.calls.call(view, { runId, server, tool, args }, sink);
    },
    runModule(path, stdin, env) {
      const deep = tooDeep();
      if (deep) return Promise.resolve({ ok: false, message: deep });
      if (!view.calls) return Promise.resolve({ ok: false, message: noCalls.replace("call tools", "run a module") });
      return view.calls.module(view, { path, stdin, env, cwd: view.host.cwd, timeoutMs: hook.timeoutMs ?? view.policy.defaultTimeoutMs }, sink);
    },
  };
}
