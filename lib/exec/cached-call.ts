// `mcpx call` without waiting for a tools/list: when the tool-list cache (lib/mcp/tool-list-cache.ts)
// already describes the tool, the call goes out as soon as the server has answered initialize, so a
// one-shot call does not wait on a list whose cost grows with the server's tools (decision 0011).
// What the live list would decide is decided from the cache, and whatever the cache may have got
// wrong goes back to the live list, so a stale cache changes no answer:
// - a name the cache does not resolve, arguments its schema refuses or cannot compile, a tool with an
//   outputSchema or that requires task execution (both checked at call time against the live list):
//   the usual path (undefined here), which lists;
// - a call that fails: the live list is read; a tool gone from it is the usual unknown-tool error
//   (with its did-you-mean), an input schema that changed and refuses the arguments the usual
//   ArgumentError; otherwise the failure is the answer.
// The caller offers the cache only for a JSON arguments object (key=value items are coerced by the
// schema, which must then be the live one) and when no hook is in force (hooks read a tool's
// annotations, which must then be the live ones).

import type { Gate } from "../hooks/types.ts";
import { ArgumentError } from "../mcp/call-args.ts";
import { checkArgs } from "../mcp/check-args.ts";
import type { EngineParts } from "../session/engine.ts";
import type { Tool } from "../mcp/tool.ts";
import { frameCodeOf } from "../errors/codes.ts";
import { findTool, pickTool, UnknownToolError } from "../mcp/tool-call.ts";
import { isPlainObject } from "../util/json-type.ts";
import { stableStringify } from "../util/stable-json.ts";
import { trace } from "../util/trace.ts";
import type { Frame } from "./frames.ts";
import { callThroughGate } from "./gated-call.ts";
import type { CallAnswer } from "../runtime/runner.ts";

/** the call's answer, or undefined when the cache cannot stand in for the live list (the caller then takes the usual path) */
export async function cachedCall(
  engine: EngineParts & { gate: Gate },
  server: string,
  requested: string,
  args: Record<string, unknown>,
  cached: unknown,
  push: (f: Frame) => void,
): Promise<CallAnswer | undefined> {
  const tool = cachedTool(server, requested, cached);
  if (!tool) return undefined;
  // the server starts while the arguments are checked
  const starting = engine.pool.start(server);
  starting.catch(() => {});
  try {
    if (await checkArgs(server, tool, args)) return undefined;
  } catch (e) {
    if (e instanceof ArgumentError) return undefined;
    throw e;
  }
  trace(`${server}.${requested}: arguments checked (catalogue cache)`);
  try {
    await starting;
  } catch (e) {
    return { ok: false, error: { name: (e as Error).name, message: (e as Error).message } };
  }
  const answer = await callThroughGate(engine, engine.gate, { server, tool: tool.name, args, known: tool }, { push });
  if (answer.ok) return answer;
  let live: Tool;
  try {
    live = await findTool(engine.pool, server, requested);
  } catch (e) {
    if (e instanceof UnknownToolError) return { ok: false, error: { name: e.name, message: e.message, code: frameCodeOf(e.code) } };
    return answer;
  }
  // throws ArgumentError, as the usual path would have before calling
  if (stableStringify(live.inputSchema) !== stableStringify(tool.inputSchema)) await checkArgs(server, live, args);
  return answer;
}

/** the tool the cache says `requested` names, if the cache is a list of tools and the tool needs nothing of the live list */
function cachedTool(server: string, requested: string, cached: unknown): Tool | undefined {
  if (!Array.isArray(cached) || !cached.every((t) => isPlainObject(t) && typeof t.name === "string")) return undefined;
  let tool: Tool;
  try {
    tool = pickTool(server, requested, cached as Tool[]);
  } catch {
    return undefined;
  }
  const needsLive = tool.outputSchema !== undefined || (tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport === "required";
  return needsLive ? undefined : tool;
}
