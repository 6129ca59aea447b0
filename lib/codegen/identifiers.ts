// Names of MCP servers and tools as JavaScript identifiers, and the rule that maps them back.
// The generated .d.ts and the runtime client must agree on every name, so both go through here.

// Reserved words (ES strict mode and modules) plus the non-writable globals: none of them can be
// declared as a binding, so they get a trailing `_` everywhere for one uniform rule.
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
  return resolveName(requested, realNames.filter((name) => !isHookToolName(name)));
}

// The globals mcpx installs for every script (see declarations.ts); a server namespace may not take them.
export const MCPX_GLOBALS = ["tools", "call", "log", "emit", "script", "result", "ToolError"] as const;

// Globals of the language and of the runtimes mcpx supports (Bun, Deno, Node): a server named
// `console` or `fetch` installed as a global would break the script and clash with their typings.
// Extend this list when a runtime adds a global that users' scripts rely on.
export const BUILTIN_GLOBALS: ReadonlySet<string> = new Set([
  "globalThis", "eval", "isFinite", "isNaN", "parseFloat", "parseInt", "decodeURI",
  "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape", "AggregateError",
  "Array", "ArrayBuffer", "AsyncDisposableStack", "Atomics", "BigInt", "BigInt64Array",
  "BigUint64Array", "Boolean", "DataView", "Date", "DisposableStack", "Error", "EvalError",
  "FinalizationRegistry", "Float16Array", "Float32Array", "Float64Array", "Function", "Int8Array",
  "Int16Array", "Int32Array", "Intl", "Iterator", "JSON", "Map", "Math", "Number", "Object",
  "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set",
  "SharedArrayBuffer", "String", "SuppressedError", "Symbol", "SyntaxError", "TypeError",
  "Uint8Array", "Uint8ClampedArray", "Uint16Array", "Uint32Array", "URIError", "WeakMap", "WeakRef",
  "WeakSet", "WebAssembly",
  "console", "process", "Buffer", "Bun", "Deno", "global", "self", "window", "navigator",
  "location", "require", "module", "exports", "__dirname", "__filename", "fetch", "Request",
  "Response", "Headers", "FormData", "Blob", "File", "URL", "URLSearchParams", "AbortController",
  "AbortSignal", "Event", "EventTarget", "TextEncoder", "TextDecoder", "ReadableStream",
  "WritableStream", "TransformStream", "WebSocket", "crypto", "performance", "setTimeout",
  "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate",
  "queueMicrotask", "structuredClone", "atob", "btoa", "alert", "confirm", "prompt", "reportError",
]);

// How one server or tool is reachable: always by its real name (tools["name"], call(server, "name")),
// and by `identifier` (a global, or a method of its namespace) unless `hiddenBecause` says why not.
export interface Binding {
  name: string;
  identifier: string;
  hiddenBecause?: string;
}

// Decides, in server order, which namespaces become top-level globals. The runtime that installs
// the globals must use this too, or the .d.ts would promise globals that do not exist.
export function namespaceBindings(serverNames: readonly string[]): Binding[] {
  const mcpxGlobals: readonly string[] = MCPX_GLOBALS;
  return bind(serverNames, (identifier) => {
    if (mcpxGlobals.includes(identifier)) return `${identifier} is an mcpx global`;
    if (BUILTIN_GLOBALS.has(identifier)) return `${identifier} is a JavaScript or runtime global`;
    return undefined;
  });
}

// Decides, in tool order, which tools of one server get a method. Hook tools are not in the
// result at all: they are hidden everywhere, not merely unnamed.
export function toolBindings(toolNames: readonly string[]): Binding[] {
  return bind(toolNames.filter((name) => !isHookToolName(name)), () => undefined);
}

// A name keeps its identifier only when resolveName maps the identifier back to it, so what the
// declarations promise is exactly what resolution at run time delivers.
function bind(listed: readonly string[], reserved: (identifier: string) => string | undefined): Binding[] {
  const names = [...new Set(listed)]; // a server listing a tool twice must not declare it twice
  return names.map((name) => {
    const identifier = toIdentifier(name);
    const taken = reserved(identifier);
    if (taken !== undefined) return { name, identifier, hiddenBecause: taken };
    const owner = resolveName(identifier, names);
    if (owner === name) return { name, identifier };
    const others = names.filter((other) => other !== name && toIdentifier(other) === identifier);
    const hiddenBecause = owner === undefined
      ? `${identifier} is also the identifier of ${others.map((o) => JSON.stringify(o)).join(", ")}`
      : `${identifier} belongs to the one named exactly ${JSON.stringify(owner)}`;
    return { name, identifier, hiddenBecause };
  });
}
