// observe hooks: run from the event bus, after the fact, never delaying anything. Their effect is
// always off (only failures are reported, as hook.failed). A CLI run waits for the ones in flight
// before it exits, bounded by their timeouts, so an observer is not cut off mid-way.

import type { EventBus } from "../events/bus.ts";
import type { Hook } from "./hook.ts";
import { runHookAction } from "./actions/run-action.ts";
import { chainOfEvent, hookCallers } from "./call-chain.ts";
import { hookMatches } from "./match.ts";
import { runContext } from "./run-context.ts";
import type { Gate } from "./types.ts";

export interface Observers {
  /** resolves when every observer started so far has finished */
  drain(): Promise<void>;
  stop(): void;
}

/** @param hooks the observe hooks in force at the moment an event is published; @param gate what their calls pass */
export function startObservers(bus: EventBus, hooks: () => Hook[], gate: Gate): Observers {
  const inflight = new Set<Promise<unknown>>();
  const off = bus.on((event) => {
    // an observer's own failure is not observed again, or one broken observer on "*" would loop
    if (event.kind === "hook.failed" && (event.data as { phase?: string }).phase === "observe") return;
    // an event of a call a hook made carries that hook's chain: an observer in it is not run again
    // for it, or an observer of "call" that calls a tool would observe its own call without end
    const chain = chainOfEvent(event.data) ?? [];
    for (const hook of hooks()) {
      if (chain.includes(hook)) continue;
      if (!hookMatches(hook, event.kind, "observe", { server: event.server, tool: event.tool, session: event.session, uri: event.uri })) continue;
      // the point an observer sees is the event kind (MCPX_HOOK_POINT too), and the run it belongs to where the event names one
      const runId = typeof (event.data as { runId?: unknown }).runId === "string" ? ((event.data as { runId: string }).runId as string) : undefined;
      const input = { point: event.kind, phase: "observe", hook: hook.name, runId, event };
      // after the fact and outside any run's stream: its calls leave their call.finished events, no frames
      const view = chain.length ? (Object.create(gate, { chain: { value: chain } }) as Gate) : gate;
      const callers = hookCallers(view, hook, runId, { hook: () => {} });
      const ctx = { ...gate.host, ...callers, point: event.kind, timeoutMs: hook.timeoutMs ?? gate.policy.defaultTimeoutMs };
      const p = runContext
        .exit(() => runHookAction(hook, "observe", input, ctx))
        .then((out) => {
          if (out.failure) bus.publish("hook.failed", { hook: hook.name, point: event.kind, phase: "observe", reason: out.failure });
        });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
  });
  return {
    async drain() {
      while (inflight.size) await Promise.allSettled([...inflight]);
    },
    stop: off,
  };
}
