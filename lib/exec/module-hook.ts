// A `module` hook's script, run in this process through the one exec path (execute) with the gate
// of the run it serves, instead of a child `mcpx run` that would resolve its config afresh and had
// no call hooks at all (it ran with `--hooks []`). Its calls pass the call point like any other
// (with the module's hook out of their chain: lib/hooks/call-chain.ts); its own run fires no
// script-point hooks and no script phases, so a module hook cannot recurse into itself through the
// script point. Its call frames (and their hook frames) go to the hook's sink. Decision 0016.

import type { FrameSink, Gate, HookCalls, ModuleOutcome } from "../hooks/types.ts";
import type { EngineParts } from "../session/engine.ts";
import type { ExecOptions } from "./options-schema.ts";
import { execute } from "./execute.ts";
import type { RunLimits, SandboxContext } from "./door-policy.ts";

export interface ModuleHost {
  cacheDir: string;
  sockDir: string;
  sandbox: SandboxContext;
  runtime: ExecOptions["runtime"];
  /** the run's bounds: the hook's own timeout (hooks.timeout) is its time bound, so none here */
  limits: RunLimits;
}

/** `gate` without the script point: no script hooks, no script-point hook tools, and nothing left to wait for */
function withoutScriptPoint(gate: Gate): Gate {
  return Object.create(gate, {
    hooks: { get: () => gate.hooks.filter((h) => h.on !== "script") },
    hookTools: {
      value: { call: (point, ...rest) => (point === "script" ? Promise.resolve([]) : gate.hookTools.call(point, ...rest)) } satisfies Gate["hookTools"],
    },
    // the run it serves awaited it; a module hook at a plugin server's server.start must not wait for that start
    ready: { value: undefined },
  }) as Gate;
}

export async function runModuleHook(
  engine: EngineParts,
  gate: Gate,
  req: Parameters<HookCalls["module"]>[1],
  sink: FrameSink,
  host: ModuleHost,
): Promise<ModuleOutcome> {
  const frames = execute(
    {
      file: req.path,
      args: [],
      script: { before: [], prefix: [], onSuccess: [], onError: [], suffix: [] },
      hooks: [],
      runtime: host.runtime,
      timeoutMs: req.timeoutMs,
      env: {},
      stdin: req.stdin,
      settings: {},
    },
    {
      engine,
      gate: withoutScriptPoint(gate),
      env: req.env,
      cacheDir: host.cacheDir,
      sockDir: host.sockDir,
      inheritStdin: false,
      cwd: req.cwd,
      sandbox: host.sandbox,
      limits: host.limits,
    },
  );
  let outcome: ModuleOutcome = { ok: false, message: "module hook ended without a result" };
  const stderr: string[] = [];
  for await (const f of frames) {
    if (f.type === "call" || (f.type === "hook" && f.on !== "script")) sink.push(f);
    else if (f.type === "stderr") stderr.push(f.data);
    else if (f.type === "result") outcome = { ok: true, value: f.value };
    else if (f.type === "error") {
      const tail = stderr.join("").trim().split("\n").slice(-2).join(" / ");
      outcome = { ok: false, message: `module threw: ${f.error.message}${tail && !f.error.message.includes(tail) ? ` (stderr: ${tail})` : ""}` };
    }
  }
  return outcome;
}
