// What each tap point becomes in OpenTelemetry: span names, span kinds and attributes, as plain
// values, so the mapping is tested without the SDK (otel-tap.ts only hands them over). The MCP
// request span and the metric follow the OpenTelemetry MCP semantic conventions (status
// Development): span `{mcp.method.name} {target}`, `mcp.method.name`, `gen_ai.tool.name`,
// `gen_ai.operation.name`, `error.type`, metric `mcp.client.operation.duration` in seconds. What the
// conventions have no name for (the run, the hook, the configured server's name) is under `mcpx.`.

import type { CallEnd, CallStart, HookRecord, RunEnd, RunStart } from "./tap.ts";

type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

/** the span kinds used here, by their OpenTelemetry names (@opentelemetry/api SpanKind) */
export type Kind = "INTERNAL" | "SERVER" | "CLIENT";

/** a span's name, kind and attributes at its start */
export interface SpanShape {
  name: string;
  kind: Kind;
  attributes: Attributes;
}

/** a span's end: the attributes known only then, and an error (status ERROR with this message) where it failed */
export interface SpanOutcome {
  attributes: Attributes;
  error?: string;
}

/** the MCP method of an upstream tool call */
const TOOLS_CALL = "tools/call";

/**
 * `error.type` of a tools/call whose result says `isError: true`: a JSON-RPC success that failed,
 * which the conventions ask the instrumentation to count as an error itself
 */
const TOOL_ERROR = "tool_error";

/** `error.type` of a hook that failed (non-zero exit, timeout, unparseable output), open or closed */
const HOOK_FAILED = "hook_failed";

/** the conventions' bucket boundaries for mcp.client.operation.duration, in seconds */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** a run: INTERNAL from the local CLI, SERVER where a door received it (/v1/exec, mcpx_exec) */
export function runSpan(start: RunStart): SpanShape {
  return {
    name: "mcpx.run",
    kind: start.door === "cli" ? "INTERNAL" : "SERVER",
    attributes: { "mcpx.run.id": start.runId, "mcpx.run.door": start.door, "mcpx.run.caller": start.caller, "mcpx.run.runtime": start.runtime },
  };
}

/** a run's end: its exit code; a non-zero one is an error whose type is the code */
export function runOutcome(end: RunEnd): SpanOutcome {
  const attributes: Attributes = { "process.exit.code": end.exitCode };
  if (end.ok) return { attributes };
  attributes["error.type"] = String(end.exitCode);
  return { attributes, error: `the run ended with exit code ${end.exitCode}` };
}

/** the MCP request span of one upstream tools/call, from the client side */
export function callSpan(start: CallStart): SpanShape {
  return {
    name: `${TOOLS_CALL} ${start.tool}`,
    kind: "CLIENT",
    attributes: {
      "mcp.method.name": TOOLS_CALL,
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": start.tool,
      "mcpx.server.name": start.server,
      ...(start.runId !== undefined ? { "mcpx.run.id": start.runId } : {}),
      ...(start.by?.length ? { "mcpx.call.by": [...start.by] } : {}),
    },
  };
}

/** `error.type` of a call's end: tool_error for `isError: true`, else mcpx's error code (CALL_REFUSED, UPSTREAM_ERROR, …) */
export function callErrorType(end: CallEnd): string | undefined {
  if (end.ok) return undefined;
  if (end.isError) return TOOL_ERROR;
  return end.errorCode ?? "_OTHER";
}

export function callOutcome(end: CallEnd): SpanOutcome {
  const type = callErrorType(end);
  if (type === undefined) return { attributes: {} };
  return { attributes: { "error.type": type }, error: type };
}

/** the attributes of one mcp.client.operation.duration measurement: low-cardinality ones only */
export function durationAttributes(start: CallStart, end: CallEnd): Attributes {
  const type = callErrorType(end);
  return {
    "mcp.method.name": TOOLS_CALL,
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": start.tool,
    "mcpx.server.name": start.server,
    ...(type !== undefined ? { "error.type": type } : {}),
  };
}

/** one hook that ran: named by its point and phase (low cardinality), the hook's own name an attribute */
export function hookSpan(h: HookRecord): SpanShape & SpanOutcome {
  const attributes: Attributes = {
    "mcpx.hook.name": h.name,
    "mcpx.hook.point": h.point,
    "mcpx.hook.phase": h.phase,
    "mcpx.hook.action": h.action,
    "mcpx.hook.effect": h.effect,
    "mcpx.hook.decision": h.decision,
    ...(h.dropped?.length ? { "mcpx.hook.dropped": [...h.dropped] } : {}),
    ...(h.server !== undefined ? { "mcpx.server.name": h.server } : {}),
    ...(h.tool !== undefined ? { "gen_ai.tool.name": h.tool } : {}),
    ...(h.runId !== undefined ? { "mcpx.run.id": h.runId } : {}),
  };
  const name = `mcpx.hook ${h.point}.${h.phase}`;
  // a hook that failed, open or closed (a closed one's decision is refuse); its own words stay out of
  // the export, as they stay out of frames sent to agents: they may quote anything
  if (h.decision !== "fail" && h.failed === undefined) return { name, kind: "INTERNAL", attributes };
  attributes["error.type"] = HOOK_FAILED;
  return { name, kind: "INTERNAL", attributes, error: HOOK_FAILED };
}
