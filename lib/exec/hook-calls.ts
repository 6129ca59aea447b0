// What a hook action's tool calls and module scripts go through (HookCalls, lib/hooks/types.ts): the
// gate's call point and the one exec path. The engine's opener hands these to the gate, since
// lib/hooks cannot import lib/exec; a gate without them refuses a hook's call rather than skip it.

import type { HookCalls } from "../hooks/types.ts";
import type { EngineParts } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import type { Frame } from "./frames.ts";
import { callThroughGate } from "./gated-call.ts";
import { runLimits, sandboxContext } from "./door-policy.ts";

/**
 * the hook calls of one process, once its engine is open: its calls pass callThroughGate to the engine's
 * pool; its module hooks run in-process with its session's directories and sandbox policy
 */
export function hookCalls(session: Pick<Session, "settings" | "get" | "cacheDir" | "sockDir">): (engine: EngineParts) => HookCalls {
  return (engine) => ({
    call: (gate, req, sink) => callThroughGate(engine, gate, req, sink as { push(f: Frame): void }),
    async module(gate, req, sink) {
      // loaded when a module hook first runs: `mcpx call` and `mcpx ls` do not pay for the exec path
      const { runModuleHook } = await import("./module-hook.ts");
      return runModuleHook(engine, gate, req, sink, {
        cacheDir: session.cacheDir,
        sockDir: session.sockDir,
        // a module hook is the user's own code, declared where hooks may run code: the policy of a local run
        sandbox: sandboxContext(session, "cli"),
        runtime: session.get("script.runtime"),
        // the hook's timeout bounds its time, and a module hook has never had a heap limit: only the files it may keep are bounded
        limits: { ...runLimits(session, "cli"), heapMb: 0 },
      });
    },
  });
}
