// MCP-driven lifecycle hooks (design §5, seed 000): an upstream tool whose bare name starts with
// `_` is a hook, invoked by name at the point and phase this table binds it to, for servers that
// MCP_HOOK_SERVERS allows. One table, so `mcpx hooks list`, docs and the guard test all read it.
// A `_` tool with no binding here is still hidden from scripts (isHookToolName) and never invoked.

import { isHookToolName } from "../mcp/tool-names.ts";
import type { Phase, PointName } from "./points.ts";

export interface HookToolBinding {
  /** the bare tool name a server lists */
  tool: `_${string}`;
  point: PointName;
  phase: Phase;
  /** the Open Plugin Spec / Claude Code event the name comes from */
  event: string;
}

export const HOOK_TOOL_BINDINGS = [
  { tool: "_PreToolUse", point: "call", phase: "before", event: "PreToolUse" },
  { tool: "_PostToolUse", point: "call", phase: "onSuccess", event: "PostToolUse" },
  { tool: "_PostToolUseFailure", point: "call", phase: "onError", event: "PostToolUseFailure" },
  { tool: "_SessionStart", point: "script", phase: "before", event: "SessionStart" },
  { tool: "_SessionEnd", point: "script", phase: "suffix", event: "SessionEnd" },
  // `mcpx serve`'s agent-host points (design §5): when the host calls mcpx's own `_Stop` or
  // `_PostCompact`, allowlisted upstream servers' tools of the same name are fanned out to
  { tool: "_Stop", point: "agent.stop", phase: "before", event: "Stop" },
  { tool: "_PostCompact", point: "agent.compact", phase: "onSuccess", event: "PostCompact" },
] as const satisfies readonly HookToolBinding[];

const BY_TOOL: ReadonlyMap<string, HookToolBinding> = new Map(HOOK_TOOL_BINDINGS.map((b) => [b.tool, b]));

/** the point and phase a `_` tool binds to, or undefined for a regular tool or an unbound `_` name */
export function bindingFor(toolName: string): HookToolBinding | undefined {
  return isHookToolName(toolName) ? BY_TOOL.get(toolName) : undefined;
}

/** the hook tools bound at one point and phase, in table order */
export function hookToolsAt(point: PointName, phase: Phase): string[] {
  return HOOK_TOOL_BINDINGS.filter((b) => b.point === point && b.phase === phase).map((b) => b.tool);
}

/** the one hook tool bound at a point and phase (the table binds at most one per place), or undefined */
export function toolFor(point: PointName, phase: Phase): string | undefined {
  return hookToolsAt(point, phase)[0];
}
