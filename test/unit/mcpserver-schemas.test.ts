// The arguments `mcpx serve`'s tools take: mcpx_exec's schema is ExecOptions' own fields (so the MCP
// door cannot drift from the others), the JSON Schema a client sees, the errors a bad argument gets,
// and how the server's own settings fill what a caller leaves out.

import { describe, expect, test } from "bun:test";
import { ExecOptionsSchema } from "../../lib/exec/options-schema.ts";
import {
  McpAgentHookArgsSchema,
  McpCallArgsSchema,
  McpExecArgsSchema,
  McpNamespacesArgsSchema,
  McpTypesArgsSchema,
  inputSchemaOf,
  parseToolArgs,
} from "../../lib/mcpserver/schemas.ts";
import { withServerDefaults } from "../../lib/exec/server-defaults.ts";
import { SERVED_TOOLS } from "../../lib/mcpserver/tools.ts";
import type { ScriptPhase } from "../../lib/settings/registry.ts";
import { SERVED_TOOL_NAMES } from "../served-tools.ts";

type Props = Record<string, { description?: string; default?: unknown }>;

describe("mcpx_exec's schema is ExecOptions", () => {
  test("it takes exactly the ExecOptions fields, minus file (a path on the server is not offered over MCP), plus resume (a paused run)", () => {
    const execKeys = [...Object.keys(ExecOptionsSchema.pipe[0].entries).filter((k) => k !== "file"), "resume"].sort();
    expect(Object.keys(McpExecArgsSchema.entries).sort()).toEqual(execKeys);
  });

  test("every key is optional (source may be left out by a resume), and unknown keys are refused", () => {
    const s = inputSchemaOf(McpExecArgsSchema);
    expect(s.required ?? []).toEqual([]);
    expect(s.additionalProperties).toBe(false);
  });

  test("every key has words for the agent: a new ExecOptions field without them fails here", () => {
    const props = inputSchemaOf(McpExecArgsSchema).properties as Props;
    for (const [key, p] of Object.entries(props)) expect({ key, described: (p.description ?? "").length > 10 }).toEqual({ key, described: true });
  });

  test("defaults show as defaults: a key with one is optional for the caller", () => {
    const props = inputSchemaOf(McpExecArgsSchema).properties as Props;
    expect(props.args!.default).toEqual([]);
    expect(props.runtime!.default).toBe("auto");
  });
});

describe("input schemas", () => {
  test("every served tool's schema is a JSON Schema 2020-12 object that refuses unknown keys (except the `_` hooks, which take anything)", () => {
    for (const t of SERVED_TOOLS) {
      const s = inputSchemaOf(t.schema);
      expect(s.type).toBe("object");
      expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      if (t.name.startsWith("_")) expect(s.additionalProperties).toBeUndefined();
      else expect(s.additionalProperties).toBe(false);
    }
  });

  test("mcpx_call needs server and tool; args is an optional object", () => {
    const s = inputSchemaOf(McpCallArgsSchema);
    expect(s.required).toEqual(["server", "tool"]);
    expect((s.properties as Record<string, { type: string }>).args!.type).toBe("object");
  });

  test("mcpx_types needs server; tool is optional", () => {
    expect(inputSchemaOf(McpTypesArgsSchema).required).toEqual(["server"]);
  });

  test("the served tools are the design's six, then the two agent-host hooks", () => {
    expect(SERVED_TOOLS.map((t) => t.name)).toEqual(SERVED_TOOL_NAMES);
  });
});

describe("parseToolArgs", () => {
  const bad: Array<{ name: string; schema: Parameters<typeof parseToolArgs>[1]; args: unknown; says: string }> = [
    {
      name: "a missing required key names it and its type",
      schema: McpCallArgsSchema,
      args: { tool: "echo" },
      says: 'invalid arguments for t: missing required key "server" (string)',
    },
    {
      name: "a wrong type names the key, the expected type and what came",
      schema: McpExecArgsSchema,
      args: { source: 1 },
      says: "source: expected string, got 1",
    },
    {
      name: "a nested wrong type names the whole path",
      schema: McpExecArgsSchema,
      args: { source: "", script: { before: [1] } },
      says: "script.before[0]: expected string, got 1",
    },
    {
      name: "an unknown key lists the keys that object takes and suggests the near one",
      schema: McpExecArgsSchema,
      args: { source: "", timeoutMS: 1 },
      says:
        'unknown key "timeoutMS": it takes source, name, args, export, script, hooks, runtime, ' +
        "sandbox, timeoutMs, timeout, env, stdin, cwd, output, delivery, settings, resume (did you mean timeoutMs?)",
    },
    {
      name: "an unknown nested key lists that object's keys",
      schema: McpExecArgsSchema,
      args: { source: "", script: { onsuccess: [] } },
      says: 'unknown key "script.onsuccess": script takes before, prefix, onSuccess, onError, suffix (did you mean onSuccess?)',
    },
    {
      name: "a picklist says every accepted value",
      schema: McpExecArgsSchema,
      args: { source: "", runtime: "python" },
      says: 'runtime: expected ("auto" | "bun" | "deno" | "node"), got "python"',
    },
    {
      name: "a regex check keeps its own words",
      schema: McpExecArgsSchema,
      args: { source: "", export: "not-an-id" },
      says: 'export: export must be an identifier, got "not-an-id"',
    },
    {
      name: "an array where an object belongs is refused, not read as {0: …}",
      schema: McpCallArgsSchema,
      args: { server: "s", tool: "t", args: ["x"] },
      says: 'args: expected an object, got ["x"]',
    },
    { name: "an array as env is refused too", schema: McpExecArgsSchema, args: { source: "", env: ["A=1"] }, says: "env: expected an object" },
    { name: "arguments that are an array are refused", schema: McpNamespacesArgsSchema, args: [], says: "the arguments: expected an object, got an array" },
    { name: "a tool that takes no keys says so", schema: McpNamespacesArgsSchema, args: { verbose: true }, says: 'unknown key "verbose": it takes no keys' },
    { name: "an empty server name is refused", schema: McpTypesArgsSchema, args: { server: "" }, says: 'server: must not be empty, got ""' },
  ];
  for (const row of bad) {
    test(row.name, () => {
      const r = parseToolArgs("t", row.schema, row.args);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toContain(row.says);
    });
  }

  test("good arguments come back with ExecOptions' defaults filled in (the timeout is left to the server's exec.timeout)", () => {
    const r = parseToolArgs("t", McpExecArgsSchema, { source: "1" });
    expect(r).toEqual({
      ok: true,
      value: {
        source: "1",
        args: [],
        script: { before: [], prefix: [], onSuccess: [], onError: [], suffix: [] },
        hooks: [],
        runtime: "auto",
        env: {},
        settings: {},
      },
    });
  });

  test("absent arguments are an empty object", () => {
    expect(parseToolArgs("t", McpNamespacesArgsSchema, undefined)).toEqual({ ok: true, value: {} });
  });

  test("the `_` hooks take {} and do not refuse a host that sends more", () => {
    expect(parseToolArgs("_Stop", McpAgentHookArgsSchema, {}).ok).toBe(true);
    expect(parseToolArgs("_Stop", McpAgentHookArgsSchema, { reason: "end_turn" }).ok).toBe(true);
  });
});

describe("withServerDefaults", () => {
  const configured: Record<ScriptPhase, string[]> = { before: ["B"], prefix: ["P"], onSuccess: [], onError: [], suffix: ["S"] };
  const settings: Record<string, unknown> = { "script.runtime": "deno", "exec.timeout": 5000 };
  const session = { phases: () => configured, get: <T>(path: string) => settings[path] as T };
  const parse = (raw: Record<string, unknown>) => {
    const r = parseToolArgs("mcpx_exec", McpExecArgsSchema, raw);
    if (!r.ok) throw new Error(r.message);
    return withServerDefaults(raw, r.value as never, session);
  };

  test("a phase the caller leaves out is the server's; a phase it gives (even empty) replaces the server's", () => {
    const o = parse({ source: "x", script: { prefix: [], suffix: ["mine"] } });
    expect(o.script).toEqual({ before: ["B"], prefix: [], onSuccess: [], onError: [], suffix: ["mine"] });
  });

  test("runtime and timeout come from script.runtime and exec.timeout unless given", () => {
    expect(parse({ source: "x" })).toMatchObject({ runtime: "deno", timeoutMs: 5000 });
    expect(parse({ source: "x", runtime: "bun", timeoutMs: 0 })).toMatchObject({ runtime: "bun", timeoutMs: 0 });
  });

  test("timeout is timeoutMs as a duration: either spelling given replaces exec.timeout; the two must agree", () => {
    expect(parse({ source: "x", timeout: "1.5s" })).toMatchObject({ timeoutMs: 1500 });
    expect(parse({ source: "x", timeout: "0" })).toMatchObject({ timeoutMs: 0 });
    expect(parse({ source: "x", timeout: "2m", timeoutMs: 120_000 })).toMatchObject({ timeoutMs: 120_000 });
    expect("timeout" in parse({ source: "x", timeout: "1s" })).toBe(false);
    expect(() => parse({ source: "x", timeout: "1s", timeoutMs: 5 })).toThrow("timeout and timeoutMs disagree");
    expect(() => parse({ source: "x", timeout: "30" })).toThrow('timeout must be a duration like "500ms"');
  });

  test("the result is valid ExecOptions with source and no file", () => {
    const o = parse({ source: "x", args: ["a"] });
    expect(o.source).toBe("x");
    expect(o.file).toBeUndefined();
    expect(o.args).toEqual(["a"]);
  });
});
