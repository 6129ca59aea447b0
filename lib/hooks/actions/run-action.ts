// One hook action, whatever its kind, to either a parsed output object or a failure reason:
// run (an argv), module (a TS script through mcpx's own runner), plugin (an MCP tool call) and
// prompt (a model). The gate decides what the output may do; nothing here clamps.

import { resultText } from "../../mcp/tool.ts";
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
}

/** runs one hook's action with what its context allows, and nothing of the gate */
export async function runHookAction(hook: Hook, phase: Phase, input: Record<string, unknown>, ctx: ActionContext): Promise<ActionOutcome> {
  const { point, timeoutMs } = ctx;
  if (hook.plugin !== undefined) {
    // a plugin's hook needs its plugin's server: started here if it is not running (it crashed, or
    // was never started), and a server that cannot be is this hook's failure, not its absence
    try {
      await ctx.pool.tools(hook.plugin);
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
      const p = await runHookProcess(a.argv, stdin, env, timeoutMs, ctx.cwd);
      if (p.failure) return { failure: p.failure };
      if (hook.compat === "claude-code") return asOutcome(fromClaudeCodeOutput(phase, p.exitCode ?? 1, p.stdout, p.stderr));
      if (p.exitCode !== 0)
        return { failure: `exited with code ${p.exitCode}${p.stderr.trim() ? `: ${p.stderr.trim().split("\n").slice(-3).join(" / ")}` : ""}` };
      return asOutcome(parseHookOutput(p.stdout));
    }
    case "module": {
      // mcpx's own runner, with the generated client; its hooks are off so a module hook cannot recurse
      const argv = [...ctx.selfArgv, "run", "--json", "--hooks", "[]", a.path];
      const env = { ...ctx.env, ...hookEnv(hook, point, phase, input as never) };
      const p = await runHookProcess(argv, JSON.stringify(input), env, timeoutMs, ctx.cwd);
      if (p.failure) return { failure: p.failure };
      let envelope: { ok?: boolean; result?: unknown; error?: { message?: string } };
      try {
        envelope = JSON.parse(p.stdout);
      } catch {
        return { failure: `module hook did not run (exit ${p.exitCode}): ${p.stderr.trim().split("\n").slice(-2).join(" / ")}` };
      }
      if (!envelope.ok) return { failure: `module threw: ${envelope.error?.message ?? "unknown error"}` };
      if (envelope.result === null || envelope.result === undefined) return { output: {} };
      if (typeof envelope.result !== "object" || Array.isArray(envelope.result))
        return { failure: `module returned ${JSON.stringify(envelope.result)}, not one object of dial keys` };
      return { output: envelope.result as Record<string, unknown> };
    }
    case "plugin": {
      try {
        const args = a.args ? (fillPlaceholders(a.args, input) as Record<string, unknown>) : input;
        const r = await ctx.pool.call(a.server, a.tool, args, timeoutMs);
        const text = resultText(r);
        if (r.isError) return { failure: `${a.target} returned an error: ${text}` };
        if (r.structuredContent && typeof r.structuredContent === "object") return { output: r.structuredContent as Record<string, unknown> };
        return asOutcome(plainTextOutput(text, phase));
      } catch (err) {
        return { failure: `${a.target}: ${(err as Error).message}` };
      }
    }
    case "prompt": {
      if (!ctx.model) {
        ctx.warn(`prompt hook ${hook.name} skipped: no model configured (set model.url and model.name)`);
        return { output: {} };
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
