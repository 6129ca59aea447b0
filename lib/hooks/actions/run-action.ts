// One hook action, whatever its kind, to either a parsed output object or a failure reason:
// run (an argv), module (a TS script through mcpx's own exec path), plugin (an MCP tool call through
// the gate's call point) and prompt (a model). The gate decides what the output may do; nothing here clamps.

import { resultText, type CallResult } from "../../mcp/tool.ts";
import type { Hook } from "../hook.ts";
import type { Phase, PointName } from "../points.ts";
import type { ActionContext } from "../types.ts";
import { fromClaudeCodeOutput, toClaudeCodeInput } from "../claude-code.ts";
import { hookEnv } from "../hook-env.ts";
import { parseHookOutput, plainTextOutput } from "../output.ts";
import { runHookProcess } from "./run-process.ts";
import { askModel, fillPlaceholders } from "./prompt.ts";

export interface ActionOutcome {
  output?: Record<string, unknown>;
  failure?: string;
  /** the action did not run, and why; carried in the hook frame */
  skipped?: string;
}

/** runs one hook's action with what its context allows, and nothing of the gate */
export async function runHookAction(hook: Hook, phase: Phase, input: Record<string, unknown>, ctx: ActionContext): Promise<ActionOutcome> {
  const { point, timeoutMs } = ctx;
  if (hook.plugin !== undefined) {
    // a plugin's hook needs its plugin's server: started here if it is not running (it crashed, or
    // was never started), and a server that cannot be is this hook's failure, not its absence
    try {
      await ctx.startServer(hook.plugin);
    } catch (err) {
      return { failure: `plugin ${hook.plugin}'s server is not running and could not be started: ${(err as Error).message}` };
    }
  }
  const a = hook.action;
  switch (a.kind) {
    case "run": {
      const claude = hook.compat === "claude-code" ? toClaudeCodeInput(point as PointName, phase, input as never, ctx.cwd) : undefined;
      const stdin = JSON.stringify(claude ?? input);
      const env = { ...ctx.env, ...hookEnv(hook, point, phase, input as never) };
      const p = await runHookProcess(a.argv, stdin, env, timeoutMs, ctx.cwd, ctx.signal);
      if (p.failure) return { failure: p.failure };
      if (hook.compat === "claude-code") return asOutcome(fromClaudeCodeOutput(phase, p.exitCode ?? 1, p.stdout, p.stderr));
      if (p.exitCode !== 0)
        return { failure: `exited with code ${p.exitCode}${p.stderr.trim() ? `: ${p.stderr.trim().split("\n").slice(-3).join(" / ")}` : ""}` };
      return asOutcome(parseHookOutput(p.stdout));
    }
    case "module": {
      // mcpx's own exec path, in this process, with the gate: the module's calls pass the call point
      // like any other (ctx.runModule; lib/exec/module-hook.ts), and its own run fires no script hooks,
      // so a module hook cannot recurse into itself through the script point
      const env = { ...ctx.env, ...hookEnv(hook, point, phase, input as never) };
      const r = await ctx.runModule(a.path, JSON.stringify(input), env);
      if (!r.ok) return { failure: r.message };
      if (r.value === null || r.value === undefined) return { output: {} };
      if (typeof r.value !== "object" || Array.isArray(r.value)) return { failure: `module returned ${JSON.stringify(r.value)}, not one object of dial keys` };
      return { output: r.value as Record<string, unknown> };
    }
    case "plugin": {
      try {
        const args = a.args ? (fillPlaceholders(a.args, input) as Record<string, unknown>) : input;
        // through the gate's call point, as every call is: a refusing call hook refuses this one too
        const answer = await ctx.call(a.server, a.tool, args);
        if (!answer.ok) return { failure: `${a.target}: ${answer.error.message}` };
        const r = answer.value as CallResult;
        const text = resultText(r);
        if (r.structuredContent && typeof r.structuredContent === "object") return { output: r.structuredContent as Record<string, unknown> };
        return asOutcome(plainTextOutput(text, phase));
      } catch (err) {
        return { failure: `${a.target}: ${(err as Error).message}` };
      }
    }
    case "prompt": {
      if (!ctx.model) {
        const skipped = "no model configured (set model.url and model.name)";
        ctx.warn(`prompt hook ${hook.name} skipped: ${skipped}`);
        return { output: {}, skipped };
      }
      try {
        const text = await askModel(ctx.model, fillPlaceholders(a.text, input) as string, timeoutMs);
        return asOutcome(plainTextOutput(text, phase));
      } catch (err) {
        return { failure: `model request failed: ${(err as Error).message}` };
      }
    }
  }
}

function asOutcome(r: { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } | Record<string, unknown>): ActionOutcome {
  if ("ok" in r && r.ok === true && "value" in r) return { output: r.value as Record<string, unknown> };
  if ("ok" in r && r.ok === false && "reason" in r) return { failure: String(r.reason) };
  return { output: r as Record<string, unknown> };
}
