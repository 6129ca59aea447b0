// The code generator: identifiers (and their resolution back to real names), the mcpx-globals.d.ts
// text and `mcpx types`. The generated text is type-checked with tsc beside sample scripts, so a
// declaration that editors would reject fails here first.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateDeclarations, renderToolTypes, type ServerTools } from "../../lib/codegen/declarations.ts";
import { namespaceBindings, toolBindings } from "../../lib/codegen/identifiers.ts";
import { isHookToolName, resolveToolName, toIdentifier } from "../../lib/mcp/tool-names.ts";

const TSC = join(import.meta.dir, "../../node_modules/.bin/tsc");

// Options a strict user project might have; the generated text must pass all of them.
const STRICT = { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, target: "esnext", module: "esnext", noEmit: true };

interface Check {
  files: Record<string, string>;
  /** The files tsc starts from; the rest must be found through them. Default: all. */
  roots?: string[];
  /** undefined: tsc's default libraries, which include the DOM, as an editor without a tsconfig has. */
  lib?: string[];
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Type-checks every case in one `tsc -b` (one process instead of one per case, several times
// faster) and returns each case's diagnostics with paths relative to the case, "" when clean.
function typeCheckAll(checks: Record<string, Check>): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), "mcpx-codegen-"));
  dirs.push(root);
  for (const [name, check] of Object.entries(checks)) {
    mkdirSync(join(root, name));
    for (const [file, text] of Object.entries(check.files)) writeFileSync(join(root, name, file), text);
    const compilerOptions = check.lib === undefined ? STRICT : { ...STRICT, lib: check.lib };
    writeFileSync(join(root, name, "tsconfig.json"), JSON.stringify({ compilerOptions, files: check.roots ?? Object.keys(check.files) }));
  }
  const r = spawnSync(TSC, ["-b", "--pretty", "false", ...Object.keys(checks)], { cwd: root, encoding: "utf8" });
  const lines = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.trim() !== "");
  const found: Record<string, string[]> = Object.fromEntries(Object.keys(checks).map((name) => [name, []]));
  let current: string[] | undefined;
  for (const line of lines) {
    const name = Object.keys(checks).find((n) => line.startsWith(`${n}/`));
    if (name !== undefined) current = found[name];
    else if (!line.startsWith(" ")) current = undefined; // a continuation line belongs to the diagnostic above
    if (current === undefined) throw new Error(`tsc -b failed outside any case (status ${r.status}):\n${lines.join("\n")}`);
    current.push(name === undefined ? line : line.slice(name.length + 1));
  }
  if (r.status !== 0 && lines.length === 0) throw new Error(`tsc -b exited ${r.status} without diagnostics`);
  return Object.fromEntries(Object.entries(found).map(([name, l]) => [name, l.join("\n")]));
}

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required });

const SERVERS: ServerTools[] = [
  {
    name: "everything",
    tools: [
      { name: "echo", description: "Echoes back the input", inputSchema: obj({ message: { type: "string", description: "Text to echo" } }, ["message"]) },
      {
        name: "get-sum",
        inputSchema: obj({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]),
        outputSchema: obj({ sum: { type: "number" } }, ["sum"]),
        annotations: { readOnlyHint: true, idempotentHint: true },
      },
      { name: "list", inputSchema: obj({ limit: { type: "integer" } }) },
      { name: "_Stop", description: "hook", inputSchema: obj({}) },
      {
        name: "delete",
        inputSchema: {
          type: "object",
          properties: { node: { $ref: "#/$defs/Node" } },
          $defs: { Node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
        },
      },
      { name: "no-schema" },
    ],
  },
  { name: "log", tools: [{ name: "write", inputSchema: obj({ line: { type: "string" } }, ["line"]) }] },
  {
    name: "my.server",
    tools: [
      { name: "a.b", inputSchema: obj({}) },
      { name: "a-b", inputSchema: obj({}) },
    ],
  },
  { name: "fetch", tools: [] },
  { name: "later", tools: [], unknownTools: true },
];

describe("identifiers", () => {
  test("names become readable identifiers", () => {
    expect(toIdentifier("get-sum")).toBe("get_sum");
    expect(toIdentifier("my.server")).toBe("my_server");
    expect(toIdentifier("123go")).toBe("t_123go");
    expect(toIdentifier("already_fine$")).toBe("already_fine$");
    expect(toIdentifier("café")).toBe("café");
    expect(toIdentifier("")).toBe("t_");
  });

  test("reserved words get a trailing underscore", () => {
    for (const word of ["delete", "default", "class", "await", "yield", "let", "enum", "null", "undefined"]) {
      expect(toIdentifier(word)).toBe(`${word}_`);
    }
  });

  test("a name that does not start with _ never yields an identifier that does", () => {
    // `-Stop` → `_Stop` would make a visible tool look like a lifecycle hook.
    for (const name of ["-Stop", ".x", " x", "@scope/x", "\u0301x", "-"]) {
      expect(toIdentifier(name).startsWith("_")).toBe(false);
    }
    expect(toIdentifier("-Stop")).toBe("t__Stop");
    expect(toIdentifier("_Stop")).toBe("_Stop");
  });

  test("a hook tool is one whose bare name starts with _", () => {
    expect(isHookToolName("_Stop")).toBe(true);
    expect(isHookToolName("_")).toBe(true);
    expect(isHookToolName("Stop_")).toBe(false);
    expect(isHookToolName("t__Stop")).toBe(false);
  });

  test("a tool resolves by exact name first, then by its unique identifier", () => {
    expect(resolveToolName("get-sum", ["get-sum", "get_sum"])).toBe("get-sum");
    expect(resolveToolName("get_sum", ["get-sum", "get_sum"])).toBe("get_sum");
    expect(resolveToolName("get_sum", ["get-sum"])).toBe("get-sum");
    expect(resolveToolName("delete_", ["delete"])).toBe("delete");
    expect(resolveToolName("nope", ["get-sum"])).toBeUndefined();
  });

  test("an identifier shared by two real names resolves to neither", () => {
    expect(resolveToolName("a_b", ["a-b", "a.b"])).toBeUndefined();
  });

  test("hook tools never resolve, by name or by identifier", () => {
    expect(resolveToolName("_Stop", ["_Stop", "echo"])).toBeUndefined();
    expect(resolveToolName("_Stop", ["_Stop"])).toBeUndefined();
    expect(resolveToolName("_x_y", ["_x-y"])).toBeUndefined();
  });

  test("a server named like an mcpx or runtime global, or sharing an identifier, gets no global", () => {
    const b = namespaceBindings(["log", "ToolError", "console", "fetch", "a.b", "a-b", "x_y", "x-y", "ok"]);
    const hidden = Object.fromEntries(b.map((x) => [x.name, x.hiddenBecause]));
    expect(hidden.log).toBe("log is an mcpx global");
    expect(hidden.ToolError).toBe("ToolError is an mcpx global");
    expect(hidden.console).toBe("console is a JavaScript or runtime global");
    expect(hidden.fetch).toBe("fetch is a JavaScript or runtime global");
    expect(hidden["a.b"]).toBe('a_b is also the identifier of "a-b"');
    expect(hidden["a-b"]).toBe('a_b is also the identifier of "a.b"');
    expect(hidden.x_y).toBeUndefined();
    expect(hidden["x-y"]).toBe('x_y belongs to the one named exactly "x_y"');
    expect(hidden.ok).toBeUndefined();
  });

  test("tool bindings leave hook tools out and list a repeated tool once", () => {
    expect(toolBindings(["_Stop", "echo", "echo", "_PostCompact"])).toEqual([{ name: "echo", identifier: "echo" }]);
  });
});

const DTS = generateDeclarations(SERVERS);

const USES_EVERY_GLOBAL = `
const echoed: unknown = await everything.echo({ message: "hi" });
const sum: number = (await everything.get_sum({ a: 1, b: 2 })).sum;
await everything.list();
await everything.delete_({ node: { kids: [{ kids: [] }] } });
await tools.log.write({ line: "x" });
await tools["my.server"];
// Tools of an unlisted server come from an index signature, so noUncheckedIndexedAccess wants the "!".
await later.anything!({ x: 1 });
const raw: unknown = await call("everything", "get-sum", { a: 1, b: 2 }, { raw: true });
const rawEcho = await everything.echo.raw({ message: "hi" });
const texts: unknown[] = rawEcho.content;
const failed: boolean | undefined = (await everything.get_sum.raw({ a: 1, b: 2 })).isError;
const fromTools = await tools.everything.echo.raw({ message: "hi" });
const untypedRaw = await later.anything!.raw({ x: 1 });
emit([texts, failed, fromTools.structuredContent, untypedRaw._meta]);
log("plain"); log.debug(1); log.info(2); log.warn(3); log.error(4);
emit({ echoed, sum, raw });
const where: string = script.path + script.name + script.runId + script.args.join(" ") + (script.export ?? "");
result.value = where;
try { await call("everything", "boom"); } catch (err) {
  if (err instanceof ToolError) { const s: string = err.server + err.tool; result.error = [s, err.raw, err.code]; }
}
export {};
`;

const MISUSES = `
await everything.echo({});
await everything._Stop({});
await everything.a_b();
await everything.echo.raw({});
await log.write({ line: "x" });
await fetch_missing.x();
export {};
`;

const COLLIDING: ServerTools[] = [
  { name: "a-b", tools: [{ name: "t", inputSchema: { $ref: "#/$defs/Promise", $defs: { Promise: { type: "string" } } } }] },
  {
    name: "a.b",
    tools: [{ name: "t", inputSchema: { type: "object", properties: { p: { $ref: "#/$defs/Promise" } }, $defs: { Promise: { type: "number" } } } }],
  },
  {
    name: "r",
    tools: [
      {
        name: "self",
        inputSchema: { type: "object", properties: { next: { $ref: "#" } } },
        outputSchema: { type: "object", properties: { up: { $ref: "#" } } },
      },
    ],
  },
];

const ESNEXT = ["esnext"];
const CHECKS: Record<string, Check> = {
  everyGlobal: { files: { "mcpx-globals.d.ts": DTS, "script.ts": USES_EVERY_GLOBAL }, lib: ESNEXT },
  defaultLibs: { files: { "mcpx-globals.d.ts": DTS, "script.ts": "await everything.list();\nexport {};\n" } },
  referenceOnly: {
    files: { "mcpx-globals.d.ts": DTS, "script.ts": '/// <reference path="./mcpx-globals.d.ts" />\nawait everything.list();\nexport {};\n' },
    roots: ["script.ts"],
    lib: ESNEXT,
  },
  misuses: { files: { "mcpx-globals.d.ts": DTS, "script.ts": MISUSES }, lib: ESNEXT },
  noServers: { files: { "mcpx-globals.d.ts": generateDeclarations([]), "script.ts": 'log("x"); emit(script.args);\nexport {};\n' }, lib: ESNEXT },
  colliding: {
    files: { "mcpx-globals.d.ts": generateDeclarations(COLLIDING), "script.ts": 'await tools["a-b"].t("s");\nawait r.self({ next: {} });\nexport {};\n' },
    lib: ESNEXT,
  },
  namespaceView: { files: { "types.d.ts": renderToolTypes(SERVERS[0] as ServerTools) }, lib: ESNEXT },
  toolView: { files: { "types.d.ts": renderToolTypes(SERVERS[0] as ServerTools, "get-sum") }, lib: ESNEXT },
  recursiveToolView: { files: { "types.d.ts": renderToolTypes(COLLIDING[2] as ServerTools, "self") }, lib: ESNEXT },
};

let diagnostics: Record<string, string> = {};
beforeAll(() => {
  diagnostics = typeCheckAll(CHECKS);
}, 60_000);

describe("generateDeclarations", () => {
  const dts = DTS;

  test("a tool that requires nothing takes optional args", () => {
    expect(dts).toContain("  readonly list: {\n    (args?: { limit?: number }): Promise<unknown>;");
  });

  test("a tool that requires something takes required args", () => {
    expect(dts).toContain("  readonly get_sum: {\n    (args: { a: number; b: number }): Promise<{ sum: number }>;");
  });

  test("a tool without an input schema takes an optional plain object", () => {
    expect(dts).toContain("  readonly no_schema: {\n    (args?: Record<string, unknown>): Promise<unknown>;");
  });

  test("the tool description and its hints become the method's JSDoc", () => {
    expect(dts).toContain(
      "  /** Echoes back the input */\n  readonly echo: {\n    (args: {\n    /** Text to echo */\n    message: string;\n  }): Promise<unknown>;",
    );
    expect(dts).toContain("  /** Hints: read-only, idempotent. */\n  readonly get_sum: {");
  });

  test("hook tools are absent from the declarations", () => {
    expect(dts).not.toContain("_Stop");
    expect(dts).not.toContain("hook\n");
  });

  test("every tool also has .raw(args), resolving to the raw MCP result", () => {
    expect(dts).toContain("    raw(args?: { limit?: number }): Promise<McpxRawResult>;");
    expect(dts).toContain("type McpxRawResult = { content: unknown[]; structuredContent?: unknown; isError?: boolean; _meta?: Record<string, unknown> };");
  });

  test("a server namespace is a global under its identifier and in tools under its real name", () => {
    expect(dts).toContain("const everything: McpxServer_everything;");
    expect(dts).toContain('    readonly "my.server": McpxServer_my_server;\n');
  });

  test("a namespace colliding with a global is left out of the top level and the file says so", () => {
    expect(dts).not.toContain("const log: McpxServer_log");
    expect(dts).toContain("    readonly log: McpxServer_log;\n");
    expect(dts).toContain('// Server "log" is reachable only as tools["log"]: log is an mcpx global.');
    expect(dts).toContain('// Server "fetch" is reachable only as tools["fetch"]: fetch is a JavaScript or runtime global.');
  });

  test("tools sharing an identifier get no method and a comment naming call()", () => {
    expect(dts).toContain('  // "a.b" is reachable only as call("my.server", "a.b"): a_b is also the identifier of "a-b".');
    expect(dts).not.toMatch(/^\s*(readonly )?a_b\b/m);
  });

  test("recursive $defs become module-local aliases", () => {
    expect(dts).toContain("type Node = { kids?: Node[] };");
    expect(dts).toContain("  readonly delete_: {\n    (args?: { node?: Node }): Promise<unknown>;");
  });

  test("a server whose tools were not listed is typed as any tool", () => {
    expect(dts).toContain("const later: McpxNamespace;");
  });

  test("the generated file type-checks beside a script that uses every global", () => {
    expect(diagnostics.everyGlobal).toBe("");
  });

  test("the generated file also type-checks with the default libraries, DOM included", () => {
    expect(diagnostics.defaultLibs).toBe("");
  });

  test("a script that only references the file by a reference comment sees the globals", () => {
    expect(diagnostics.referenceOnly).toBe("");
  });

  test("the type check is real: wrong arguments, hook tools and hidden names are errors", () => {
    const out = diagnostics.misuses ?? "";
    expect(out).toContain("script.ts(2,"); // message is required
    expect(out).toContain("script.ts(3,"); // hook tools are not declared
    expect(out).toContain("script.ts(4,"); // everything has no a_b
    expect(out).toContain("script.ts(5,"); // `log` is mcpx's log, not the server
    expect(out).toContain("script.ts(6,");
    expect(out).toContain("script.ts(7,"); // .raw takes the tool's arguments too
  });

  test("no servers still gives a working globals file", () => {
    expect(diagnostics.noServers).toBe("");
  });

  test("identifiers and alias names that collide across servers stay unique", () => {
    const text = CHECKS.colliding?.files["mcpx-globals.d.ts"] ?? "";
    expect(text).toContain("interface McpxServer_a_b {");
    expect(text).toContain("interface McpxServer_a_b_2 {");
    expect(text).toContain("type Promise_2 = string;");
    expect(text).toContain("type Promise_3 = number;");
    expect(text).toContain("  readonly self: {\n    (args?: r_self_args): Promise<r_self_result>;");
    expect(diagnostics.colliding).toBe("");
  });
});

describe("renderToolTypes", () => {
  const everything = SERVERS[0] as ServerTools;

  test("a namespace renders as a declared namespace of functions without hook tools", () => {
    const text = renderToolTypes(everything);
    expect(text).toStartWith('// MCP server "everything" (global everything; also tools["everything"])\ndeclare namespace everything {\n');
    expect(text).toContain("  function list(args?: { limit?: number }): Promise<unknown>;");
    expect(text).toContain("  namespace list {\n    /** The raw MCP result");
    expect(text).not.toContain("_Stop");
    expect(diagnostics.namespaceView).toBe("");
  });

  test("one tool renders its argument and result types and its signature, found by real name or identifier", () => {
    const text = renderToolTypes(everything, "get_sum");
    expect(text).toBe(renderToolTypes(everything, "get-sum"));
    expect(text).toContain("  type Args = { a: number; b: number };");
    expect(text).toContain("  type Result = { sum: number };");
    expect(text).toContain("  function get_sum(args: Args): Promise<Result>;");
    expect(diagnostics.toolView).toBe("");
  });

  test("a tool whose schemas recurse through # names its own Args and Result", () => {
    const text = renderToolTypes(COLLIDING[2] as ServerTools, "self");
    expect(text).toContain("  type Args = { next?: Args };");
    expect(text).toContain("  type Result = { up?: Result };");
    expect(diagnostics.recursiveToolView).toBe("");
  });

  test("a namespace colliding with a global says it is reachable only through tools", () => {
    expect(renderToolTypes(SERVERS[1] as ServerTools)).toStartWith('// MCP server "log" (reachable only as tools["log"]: log is an mcpx global)');
  });

  test("a hook tool is an unknown tool, and the error lists the tools there are", () => {
    expect(() => renderToolTypes(everything, "_Stop")).toThrow(
      'unknown tool "_Stop" on MCP server "everything": use one of echo, get-sum, list, delete, no-schema',
    );
  });
});
