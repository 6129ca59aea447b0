// One `mcpx call`, wherever it runs (the CLI's own engine, or the daemon's for `call --remote`): the
// tool is found by the name the caller used, key=value items are coerced by its input schema, the
// arguments are checked against that schema, and the call goes through the hook gate. Both doors
// share this so a remote call answers exactly what a local one does.

import { frameCodeOf, isErrorCode } from "../errors/codes.ts";
import { runContext } from "../hooks/run-context.ts";
import type { Gate } from "../hooks/types.ts";
import { parseKeyValues } from "../mcp/call-args.ts";
import { checkArgs, preloadArgChecks } from "../mcp/check-args.ts";
import type { EngineParts } from "../session/engine.ts";
import type { Tool } from "../mcp/tool.ts";
import { findTool } from "../mcp/tool-call.ts";
import type { Frame } from "./frames.ts";
import { cachedCall } from "./cached-call.ts";
import { callThroughGate } from "./gated-call.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import { trace } from "../util/trace.ts";
import type { Door } from "../telemetry/tap.ts";

/** the arguments as typed: one JSON object (an argument or stdin), or key=value items to coerce once the tool's schema is known */
export type CallInput = { kind: "json"; args: Record<string, unknown> } | { kind: "items"; items: string[] };

/** what happens on the way, in order: hook frames (server.start, call hooks) and a schema warning */
export type CallNote = Extract<Frame, { type: "hook" }> | { type: "warn"; message: string };

/**
 * The call's answer; hook frames and warnings go to `note` as they happen. Arguments the schema
 * refuses throw ArgumentError (exit 2) before the gate; an unknown tool is an answer, not a throw.
 * `cached`: the server's catalogue from the cache, offered when no hook is in force; with JSON
 * arguments it may spare the call its tools/list (cached-call.ts says when and why that is safe).
 * `door`: the CLI's own engine or the daemon's /v1/call, for the telemetry tap.
 */
export async function oneCall(
  engine: EngineParts & { gate: Gate },
  server: string,
  requested: string,
  input: CallInput,
  note: (n: CallNote) => void,
  door: Door,
  cached?: unknown,
): Promise<CallAnswer> {
  const push = (f: Frame) => {
    if (f.type === "hook") note(f);
  };
  return runContext.run({ door, hookFrame: (f) => push({ type: "hook", ...f }) }, async () => {
    if (cached !== undefined && input.kind === "json") {
      const answer = await cachedCall(engine, server, requested, input.args, cached, push);
      if (answer) return answer;
    }
    // the arguments are read and checked against the tool's input schema before the gate: the
    // server is never called with arguments its schema refuses (an unknown tool fails here too,
    // as it would in the gate, before any call hook)
    let tool: Tool;
    const finding = findTool(engine.pool, server, requested);
    preloadArgChecks();
    try {
      tool = await finding;
    } catch (e) {
      // with its code, as every other failure of the call carries one (`mcpx call --json` prints it)
      const code = (e as { code?: unknown }).code;
      return {
        ok: false as const,
        error: { name: (e as Error).name, message: (e as Error).message, code: isErrorCode(code) ? frameCodeOf(code) : frameCodeOf("INTERNAL") },
      };
    }
    trace(`${server}.${requested}: tool found`);
    const args = input.kind === "json" ? input.args : parseKeyValues(input.items, tool.inputSchema);
    const warning = await checkArgs(server, tool, args);
    trace(`${server}.${requested}: arguments checked`);
    if (warning) note({ type: "warn", message: warning });
    return callThroughGate(engine, engine.gate, { server, tool: tool.name, args }, { push });
  });
}
