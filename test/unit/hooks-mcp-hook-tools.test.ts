// The `_` hook tools and the points they bind to: one table, every binding to a live point/phase.

import { describe, expect, test } from "bun:test";
import { bindingFor, HOOK_TOOL_BINDINGS, hookToolsAt, toolFor } from "../../lib/hooks/mcp-hook-tools.ts";
import { phasesOf, POINTS, type PointName } from "../../lib/hooks/points.ts";

describe("bindingFor", () => {
  const table: Array<{ name: string; tool: string; at: [string, string] | undefined }> = [
    { name: "_PreToolUse binds to call.before", tool: "_PreToolUse", at: ["call", "before"] },
    { name: "_PostToolUse binds to call.onSuccess", tool: "_PostToolUse", at: ["call", "onSuccess"] },
    { name: "_PostToolUseFailure binds to call.onError", tool: "_PostToolUseFailure", at: ["call", "onError"] },
    { name: "_SessionStart binds to script.before", tool: "_SessionStart", at: ["script", "before"] },
    { name: "_SessionEnd binds to script.suffix", tool: "_SessionEnd", at: ["script", "suffix"] },
    { name: "_Stop binds to agent.stop before", tool: "_Stop", at: ["agent.stop", "before"] },
    { name: "_PostCompact binds to agent.compact onSuccess", tool: "_PostCompact", at: ["agent.compact", "onSuccess"] },
    { name: "a regular tool binds nowhere", tool: "PreToolUse", at: undefined },
    { name: "names are case-sensitive", tool: "_pretooluse", at: undefined },
    { name: "an unknown _ tool binds nowhere", tool: "_Whatever", at: undefined },
  ];
  for (const row of table) {
    test(row.name, () => {
      const b = bindingFor(row.tool);
      expect(b === undefined ? undefined : [b.point, b.phase]).toEqual(row.at as never);
    });
  }
});

describe("the binding table", () => {
  test("every binding names a point and a phase that point has", () => {
    for (const b of HOOK_TOOL_BINDINGS) {
      expect(Object.hasOwn(POINTS, b.point)).toBe(true);
      expect(phasesOf(b.point as PointName)).toContain(b.phase);
    }
  });

  test("every tool starts with _ and is bound once, and each place has at most one tool", () => {
    const tools = HOOK_TOOL_BINDINGS.map((b) => b.tool);
    expect(tools.every((t) => t.startsWith("_"))).toBe(true);
    expect(new Set(tools).size).toBe(tools.length);
    const places = HOOK_TOOL_BINDINGS.map((b) => `${b.point}.${b.phase}`);
    expect(new Set(places).size).toBe(places.length);
  });

  test("toolFor and hookToolsAt read the same table", () => {
    expect(toolFor("call", "before")).toBe("_PreToolUse");
    expect(toolFor("call", "suffix")).toBeUndefined();
    expect(hookToolsAt("script", "suffix")).toEqual(["_SessionEnd"]);
    expect(hookToolsAt("server.start", "before")).toEqual([]);
  });
});
