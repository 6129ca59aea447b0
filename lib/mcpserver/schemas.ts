// The arguments of the tools `mcpx serve` offers, as valibot schemas: one declaration drives the
// JSON Schema a client sees in tools/list and the check of what it sends. mcpx_exec's schema is
// ExecOptionsSchema's own entries (minus `file`, with `source` required) so that the MCP door takes
// exactly what the other doors take; a unit test fails when the two drift apart.

import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { ExecOptionsSchema } from "../exec/options-schema.ts";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "../mcp/tool-search.ts";
import { suggest } from "../util/did-you-mean.ts";

/** what the agent reads beside each mcpx_exec key; a key without words here still works, undocumented */
const EXEC_KEY_DOCS: Record<string, string> = {
  name: 'The name the script sees as script.name (default "exec").',
  args: "Arguments for the script: its default export is called with this array (or the --export function with them spread).",
  export: "Call this named export with the args spread, instead of the default export.",
  script:
    "Inline TypeScript lines per phase, spliced into the launcher around the source: before " +
    "(before the server namespaces, tools and call exist; log, emit, script and result do), " +
    "prefix (after them), onSuccess (sees result.value), onError (sees result.error, which " +
    "still propagates), suffix (last, on both paths). A phase you give replaces the server's " +
    'configured lines for it, unless it holds "-" (or null): the server\'s lines go there ' +
    '(["log(1)", "-"] runs yours first, then the server\'s); a phase you leave out keeps them.',
  hooks:
    "Hooks on the script or call point for this run only (call hooks see this run's own calls), as in config, and only plugin hooks (a tool " +
    'call through the hook gate: {"on":"script","phase":"before","plugin":"server.tool","args":{},"effect":"refuse"}); ' +
    "they may stop the run but never change values. run, module and prompt hooks are refused here: " +
    "they would run as the user outside the sandbox.",
  runtime:
    "auto or bun (the embedded Bun), deno or node from PATH. Default: the server's " +
    "script.runtime setting. A sandboxed run is always Deno (auto or deno; bun and node are refused).",
  sandbox:
    'exec.sandbox for this run: "on" (Deno, no file, network, subprocess, environment or FFI ' +
    "access beyond the run's own files, its tool calls and the server's exec.sandboxAllow), " +
    '"auto" (on here) or "off". Default: the server\'s exec.sandbox, which is auto, so on. You ' +
    'may tighten it, never loosen it: "off" is refused unless the server itself runs mcpx_exec unsandboxed.',
  timeoutMs: "End the script's whole process group after this many milliseconds; 0 = no limit. Default: the server's exec.timeout setting.",
  timeout: 'timeoutMs as a duration ("500ms", "30s", "1m"; "0" = no limit). Give one of the two.',
  output:
    'What the text content holds: "text" (default) the script\'s stdout then its result or ' +
    'error, "json" the envelope as JSON, "stream" every frame of the run as NDJSON. The ' +
    "structuredContent is the envelope either way.",
  delivery:
    'How artifacts (artifact(name, data)) come back: "uri" (default) as content of this answer; "stream" also ' +
    'as artifact.chunk frames after end, which output "stream" shows.',
  env:
    "Variables the script reads (Deno.env.get, process.env), over the server's environment. Names " +
    "that change how a runtime starts (LD_*, DENO_*, BUN_*, NODE_*, npm_config_*, MALLOC_*, GLIBC_TUNABLES, MCPX_*) are refused.",
  stdin: "Text written to the script's stdin (default: empty).",
  cwd: "Working directory of the script, relative to the server's.",
  settings:
    'Your own limits for this run, written as in a config file: {"hooks.autonomy": "advise", ' +
    '"autonomy.max": "propose", "hooks.retryBudget": 0, "hooks.timeout": "5s", ' +
    '"hooks.mcpTimeout": "1s", "mcp.callTimeout": "10s"}. The stricter of each and the ' +
    "server's own applies: they can tighten, never loosen.",
};

const execEntries = ExecOptionsSchema.pipe[0].entries;

function documented(schema: v.GenericSchema, doc: string | undefined): v.GenericSchema {
  return doc === undefined ? schema : v.pipe(schema, v.description(doc));
}

/**
 * mcpx_exec's arguments: the ExecOptions fields, `file` not offered over MCP, and `resume`. `source`
 * is optional in the schema only because a resume may leave it out: a request with neither is refused
 * (lib/mcpserver/tools.ts execTool).
 */
export const McpExecArgsSchema = (() => {
  const { source: _source, file: _file, ...rest } = execEntries;
  const entries: Record<string, v.GenericSchema> = {
    source: v.optional(
      v.pipe(
        v.string(),
        v.description(
          "TypeScript to run (required, unless you resume). Each configured MCP server is a global namespace (`await " +
            'fake.echo({message: "hi"})`; see mcpx_namespaces, mcpx_types). Without imports or exports ' +
            "it is the body of an async function: `return value` sets the result. With them it is a " +
            "module, and `export default (args) => value` sets it. Console output is captured as stdout/stderr.",
        ),
      ),
    ),
  };
  for (const [key, schema] of Object.entries(rest)) entries[key] = documented(schema as v.GenericSchema, EXEC_KEY_DOCS[key]);
  entries.resume = v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Resume a run that paused for a person's yes (its answer's structuredContent.pending.id), once the user " +
          "has run mcpx approve ID or mcpx reject ID: the run is made again, its calls before the pause answered " +
          "from its log. source and the other fields may be left out (the paused run's are used).",
      ),
    ),
  );
  return v.strictObject(entries);
})();

export const McpCallArgsSchema = v.strictObject({
  server: v.pipe(v.string(), v.nonEmpty("must not be empty"), v.description("The configured server's name (as mcpx_namespaces lists it).")),
  tool: v.pipe(v.string(), v.nonEmpty("must not be empty"), v.description("The tool's name as the server lists it, or its identifier as a script calls it.")),
  args: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description("The tool's arguments object.")), {}),
});

export const McpNamespacesArgsSchema = v.strictObject({});

export const McpTypesArgsSchema = v.strictObject({
  server: v.pipe(v.string(), v.nonEmpty("must not be empty"), v.description("The configured server's name, or its namespace identifier.")),
  tool: v.optional(v.pipe(v.string(), v.nonEmpty("must not be empty"), v.description("One tool (name or identifier); without it, the whole namespace."))),
});

/** mcpx_save_skill's arguments; skills.ts checks them again and says what is wrong in its own words */
export const McpSaveSkillArgsSchema = v.strictObject({
  name: v.pipe(v.string(), v.description("The skill's name: 1 to 48 of a-z, 0-9, _ and -, starting with a letter or digit; the tool is skill_NAME.")),
  description: v.pipe(v.string(), v.description("What the tool does, as an agent will read it in the tool list.")),
  input: v.pipe(v.record(v.string(), v.unknown()), v.description('The tool\'s input: a JSON Schema of "type": "object".')),
  source: v.pipe(
    v.string(),
    v.description(
      "TypeScript with `export default async function (args) { … }`: called with the tool's arguments object, " +
        "it may call the servers' tools (each server a global namespace) and returns the tool's result.",
    ),
  ),
});

export const McpSearchArgsSchema = v.strictObject({
  query: v.pipe(
    v.string(),
    v.regex(/\S/, "must have a word in it"),
    v.description('What you want to do, in words ("write a file", "add two numbers"); matched against tool and server names, parameters and descriptions.'),
  ),
  limit: v.optional(
    v.pipe(
      v.number(),
      v.integer("must be a whole number"),
      v.minValue(1, "must be at least 1"),
      v.maxValue(MAX_SEARCH_LIMIT, `must be at most ${MAX_SEARCH_LIMIT}`),
      v.description(`How many tools to return at most (default ${DEFAULT_SEARCH_LIMIT}).`),
    ),
  ),
});

export const McpDescribeArgsSchema = v.strictObject({
  tools: v.pipe(
    v.array(v.pipe(v.string(), v.nonEmpty("must not be empty"))),
    v.nonEmpty("must name at least one tool"),
    v.maxLength(MAX_SEARCH_LIMIT, `must name at most ${MAX_SEARCH_LIMIT} tools`),
    v.description('Tools as SERVER.TOOL, e.g. ["filesystem.write_file", "everything.get-sum"] (as mcpx_search names them).'),
  ),
});

/** `_Stop` and `_PostCompact` take `{}` (seed 000); a host that sends more is not refused for it */
export const McpAgentHookArgsSchema = v.looseObject({});

/** the JSON Schema of a tool's input, as tools/list advertises it (draft 2020-12, MCP's default dialect) */
export function inputSchemaOf(schema: v.GenericSchema): { type: "object"; [k: string]: unknown } {
  // the input type: a key with a default is optional for the caller
  return toJsonSchema(schema, { target: "draft-2020-12", typeMode: "input" }) as { type: "object"; [k: string]: unknown };
}

export type ParsedArgs<T> = { ok: true; value: T } | { ok: false; message: string };

/** validates a tool's arguments; a failure names the tool, the key and what the key accepts */
export function parseToolArgs<S extends v.GenericSchema>(tool: string, schema: S, args: unknown): ParsedArgs<v.InferOutput<S>> {
  const misfit = arrayForObject(schema, args);
  if (misfit) return { ok: false, message: `invalid arguments for ${tool}: ${misfit}` };
  const r = v.safeParse(schema, args ?? {});
  if (r.success) return { ok: true, value: r.output };
  return { ok: false, message: `invalid arguments for ${tool}: ${r.issues.map((i) => describeIssue(schema, i)).join("; ")}` };
}

// valibot's record and object schemas take an array as an object with index keys, where JSON
// Schema's "type": "object" (what the client was shown) does not: `"args": [1]` must not become {"0": 1}
function arrayForObject(root: v.GenericSchema, args: unknown): string | undefined {
  if (Array.isArray(args)) return `the arguments: expected an object, got an array`;
  if (typeof args !== "object" || args === null) return undefined;
  for (const [key, value] of Object.entries(args)) {
    if (!Array.isArray(value)) continue;
    const type = (entryAt(root, [key]) as { type?: string } | undefined)?.type;
    if (type === "record" || type === "object" || type === "strict_object" || type === "loose_object")
      return `${key}: expected an object, got ${received(value)}`;
  }
  return undefined;
}

function describeIssue(root: v.GenericSchema, issue: v.BaseIssue<unknown>): string {
  const keys = (issue.path ?? []).map((p) => p.key as string | number);
  const where = keys.length === 0 ? "the arguments" : pathText(keys);
  if (issue.type === "strict_object" && issue.expected === "never" && keys.length > 0) {
    // an unknown key: say which keys this object takes
    const accepted = acceptedKeys(root, keys.slice(0, -1));
    const word = String(keys[keys.length - 1]);
    const owner = keys.length === 1 ? "it" : pathText(keys.slice(0, -1));
    return `unknown key ${JSON.stringify(where)}: ${owner} takes ${accepted.length ? accepted.join(", ") : "no keys"}${suggest(word, accepted)}`;
  }
  if (issue.input === undefined && keys.length > 0 && issue.expected === JSON.stringify(keys[keys.length - 1])) {
    // a required key is missing: say what it takes
    const entry = entryAt(root, keys);
    return `missing required key ${JSON.stringify(where)}${entry?.expects ? ` (${entry.expects})` : ""}`;
  }
  // valibot's own messages start "Invalid …"; a schema's own words say it better than `expected`
  const custom = issue.message !== undefined && !issue.message.startsWith("Invalid ");
  const what = custom ? issue.message : issue.expected ? `expected ${issue.expected}` : issue.message;
  return `${where}: ${what}, got ${received(issue.input)}`;
}

function pathText(keys: Array<string | number>): string {
  return keys.reduce<string>((s, k) => (typeof k === "number" ? `${s}[${k}]` : s === "" ? k : `${s}.${k}`), "");
}

function received(x: unknown): string {
  if (x === undefined) return "nothing";
  const text = JSON.stringify(x);
  return text === undefined ? typeof x : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** the keys of the object schema at `keys` below `root`, through optional, pipe, array and record wrappers */
function acceptedKeys(root: v.GenericSchema, keys: Array<string | number>): string[] {
  return Object.keys((entryAt(root, keys) as { entries?: Record<string, unknown> } | undefined)?.entries ?? {});
}

function entryAt(root: v.GenericSchema, keys: Array<string | number>): { expects?: string } | undefined {
  let s: unknown = root;
  const unwrap = () => {
    for (;;) {
      const o = s as { wrapped?: unknown; type?: string };
      if (o && o.wrapped !== undefined) s = o.wrapped;
      else return;
    }
  };
  unwrap();
  for (const k of keys) {
    const o = s as { entries?: Record<string, unknown>; item?: unknown; value?: unknown };
    s = typeof k === "number" ? o.item : (o.entries?.[k] ?? o.value);
    if (s === undefined) return undefined;
    unwrap();
  }
  return s as { expects?: string };
}
