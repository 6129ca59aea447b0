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
  /**
   * resolves when every observer started so far has finished; with graceMs, those still running
   * after it are ended (run hooks' process groups) and their names returned, so a command that is
   * ending waits hooks.observeGrace for them, not each one's whole hooks.timeout
   */
  drain(graceMs?: number): Promise<string[]>;
  stop(): void;
}

/** @param hooks the observe hooks in force at the moment an event is published; @param gate what their calls pass */
export function startObservers(bus: EventBus, hooks: () => Hook[], gate: Gate): Observers {
  /** each observer running, with its hook's name and what ends it early */
  const inflight = new Map<Promise<unknown>, { name: string; end: AbortController }>();
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
      const end = new AbortController();
      const ctx = { ...gate.host, ...callers, point: event.kind, timeoutMs: hook.timeoutMs ?? gate.policy.defaultTimeoutMs, signal: end.signal };
      const p = runContext
        .exit(() => runHookAction(hook, "observe", input, ctx))
        .then((out) => {
          if (out.failure) bus.publish("hook.failed", { hook: hook.name, point: event.kind, phase: "observe", reason: out.failure });
        });
      inflight.set(p, { name: hook.name, end });
      void p.finally(() => inflight.delete(p));
    }
  });
  return {
    async drain(graceMs) {
      const cut = new Set<string>();
      const deadline = graceMs === undefined ? undefined : performance.now() + graceMs;
      while (inflight.size) {
        const left = deadline === undefined ? undefined : deadline - performance.now();
        if (left !== undefined && left <= 0) {
          // an observer past the grace is ended as its timeout would end it, and named by the caller
          for (const { name, end } of inflight.values()) {
            cut.add(name);
            end.abort(`ended: the command was ending, and hooks.observeGrace (${graceMs}ms) had passed`);
          }
          await Promise.allSettled([...inflight.keys()]);
          continue;
        }
        const settled = Promise.allSettled([...inflight.keys()]);
        if (left === undefined) await settled;
        else {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, left)))]);
          clearTimeout(timer);
        }
      }
      return [...cut];
    },
    stop: off,
  };
}
