// Which servers and tools get an identifier in the generated client and the runtime: the bindings.
// The name rules themselves (toIdentifier, resolveName, the `_` hook-tool rule) are in
// lib/mcp/tool-names.ts; the generated .d.ts and the runtime client both decide through here.

import { isHookToolName, resolveName, toIdentifier } from "../mcp/tool-names.ts";

// The globals mcpx installs for every script (see declarations.ts); a server namespace may not take them.
const MCPX_GLOBALS = ["tools", "call", "resources", "prompts", "log", "emit", "script", "result", "ToolError"] as const;

// Globals of the language and of the runtimes mcpx supports (Bun, Deno, Node): a server named
// `console` or `fetch` installed as a global would break the script and clash with their typings.
// Extend this list when a runtime adds a global that users' scripts rely on.
// biome-ignore format: a word list, kept packed to read as one
const BUILTIN_GLOBALS: ReadonlySet<string> = new Set([
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
  return bind(
    toolNames.filter((name) => !isHookToolName(name)),
    () => undefined,
  );
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
    const hiddenBecause =
      owner === undefined
        ? `${identifier} is also the identifier of ${others.map((o) => JSON.stringify(o)).join(", ")}`
        : `${identifier} belongs to the one named exactly ${JSON.stringify(owner)}`;
    return { name, identifier, hiddenBecause };
  });
}
