// observe hooks: run from the event bus, after the fact, never delaying anything. Their effect is
// always off (only failures are reported, as hook.failed). A CLI run waits for the ones in flight
// before it exits, bounded by their timeouts, so an observer is not cut off mid-way.

import type { EventBus } from "../events/bus.ts";
import type { Hook } from "./hook.ts";
import { runHookAction } from "./actions/run-action.ts";
import { hookMatches } from "./match.ts";
import type { GatePolicy } from "./policy.ts";
import type { ActionHost } from "./types.ts";

export interface Observers {
  /** resolves when every observer started so far has finished */
  drain(): Promise<void>;
  stop(): void;
}

/** @param hooks the observe hooks in force at the moment an event is published */
export function startObservers(bus: EventBus, hooks: () => Hook[], host: ActionHost, policy: Pick<GatePolicy, "defaultTimeoutMs">): Observers {
  const inflight = new Set<Promise<unknown>>();
  const off = bus.on((event) => {
    // an observer's own failure is not observed again, or one broken observer on "*" would loop
    if (event.kind === "hook.failed" && (event.data as { phase?: string }).phase === "observe") return;
    for (const hook of hooks()) {
      if (!hookMatches(hook, event.kind, "observe", { server: event.server, tool: event.tool, session: event.session, uri: event.uri })) continue;
      // the point an observer sees is the event kind (MCPX_HOOK_POINT too), and the run it belongs to where the event names one
      const runId = (event.data as { runId?: unknown }).runId;
      const input = { point: event.kind, phase: "observe", hook: hook.name, runId: typeof runId === "string" ? runId : undefined, event };
      const p = runHookAction(hook, "observe", input, { ...host, point: event.kind, timeoutMs: hook.timeoutMs ?? policy.defaultTimeoutMs }).then((out) => {
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
