// Names of MCP servers and tools: the `_` rule that marks a tool as a lifecycle hook, the JavaScript
// identifier a name is reachable by, and the rule that maps an identifier back to the real name.
// A leaf: the pool (which hides hook tools), tool calls (which resolve names), the generated client
// (lib/codegen) and event filters all read these rules from here, so they agree on every name.

// Reserved words (ES strict mode and modules) plus the non-writable globals: none of them can be
// declared as a binding, so they get a trailing `_` everywhere for one uniform rule.
// biome-ignore format: a word list, kept packed to read as one
const RESERVED = new Set([
  "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
  "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in",
  "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try",
  "typeof", "var", "void", "while", "with", "yield", "let", "static", "implements", "interface",
  "package", "private", "protected", "public", "await", "arguments", "eval", "undefined", "NaN",
  "Infinity",
]);

const ID_START = /^[\p{ID_Start}$]$/u;
const ID_CONTINUE = /^[\p{ID_Continue}$]$/u;

// Turns a server or tool name into a readable identifier: `get-sum` → `get_sum`, `123go` → `t_123go`,
// `delete` → `delete_`. Every character that cannot appear in an identifier becomes `_`, one for one
// and without collapsing, so the mapping is predictable. A name that did not start with `_` never
// yields one that does: `_` marks hook tools, and a visible tool must not look like a hidden one.
export function toIdentifier(name: string): string {
  let out = "";
  for (const ch of name) out += ID_CONTINUE.test(ch) ? ch : "_";
  const first = [...out][0] ?? "";
  const startsWell = name.startsWith("_") || ID_START.test(first);
  if (!startsWell) out = `t_${out}`;
  return RESERVED.has(out) ? `${out}_` : out;
}

// A tool whose bare name (as the server lists it) starts with `_` is a lifecycle hook (seed 000):
// it is left out of the generated client, `types`, and anything mcpx serves.
export function isHookToolName(name: string): boolean {
  return name.startsWith("_");
}

// Finds the real name meant by `requested`: an exact match first, else the one real name whose
// identifier is `requested`. Two real names sharing that identifier make it ambiguous (undefined)
// rather than picking one by list order, which would change meaning when a server reorders tools.
export function resolveName(requested: string, realNames: readonly string[]): string | undefined {
  if (realNames.includes(requested)) return requested;
  const matches = realNames.filter((real) => toIdentifier(real) === requested);
  return matches.length === 1 ? matches[0] : undefined;
}

// resolveName for tools, where hook tools never resolve: a script that names one gets the same
// answer as for an unknown tool, so the server is never contacted.
export function resolveToolName(requested: string, realNames: readonly string[]): string | undefined {
  if (isHookToolName(requested)) return undefined;
  return resolveName(
    requested,
    realNames.filter((name) => !isHookToolName(name)),
  );
}

/**
 * What `mcpx call TARGET` names: SERVER.TOOL, or a bare TOOL when one server is in scope (the ad-hoc
 * server of --stdio/--http-url, else a config's only server), as a user of one server types it.
 * `inScope`: the ad-hoc server's name alone, or every configured name. A string is the refusal.
 */
export function callTarget(target: string, inScope: readonly string[]): { server: string; tool: string } | string {
  const dot = target.indexOf(".");
  if (dot > 0 && dot < target.length - 1) return { server: target.slice(0, dot), tool: target.slice(dot + 1) };
  if (dot === -1 && inScope.length === 1) return { server: inScope[0]!, tool: target };
  const example = inScope.length ? `${inScope[0]}.${dot === -1 ? target : "echo"}` : "everything.echo";
  const scope =
    dot !== -1
      ? ""
      : inScope.length
        ? ` (a bare tool name needs one server in scope; there are ${inScope.length}: ${inScope.join(", ")})`
        : " (no server is configured)";
  return `"${target}" is not SERVER.TOOL${scope}: name the server, e.g. ${example}`;
}
