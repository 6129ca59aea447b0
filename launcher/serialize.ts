// Values and errors as the wire carries them: JSON that never throws, for frames the script's values
// go into, and errors written into a frame and revived from an answer.

import type { WireError } from "./wire.ts";

// captured before the script can replace them: a replaced JSON.stringify would see, and could rewrite, frame bodies
export const stringify = JSON.stringify;

/** JSON that never throws: bigint as string, cycles and functions described, undefined dropped */
export function safeJson(value: unknown): string {
  // most frames are small plain JSON, where a replacer called on every key is the whole cost
  if (plainJson(value, [])) return stringify(value);
  const seen = new WeakSet<object>();
  return stringify(value, (_k, v) => {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
    if (v instanceof Error) return serializeError(v);
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[Circular]";
      seen.add(v);
    }
    return v;
  });
}

/** how many objects plainJson looks at before it leaves a value to safeJson's replacer (shared references are looked for among them) */
const PLAIN_SCAN_OBJECTS = 64;

/**
 * True when JSON.stringify alone gives what safeJson's replacer would: only strings, finite-or-not
 * numbers, booleans, null, plain objects and arrays, with no object met twice (the replacer writes a
 * repeated object as "[Circular]") and no toJSON. Anything else, or more than PLAIN_SCAN_OBJECTS
 * objects, takes the replacer.
 */
function plainJson(v: unknown, objects: object[]): boolean {
  if (v === null) return true;
  const t = typeof v;
  if (t === "string" || t === "number" || t === "boolean") return true;
  if (t !== "object") return false;
  const o = v as Record<string, unknown>;
  if (objects.length >= PLAIN_SCAN_OBJECTS || objects.includes(o)) return false;
  objects.push(o);
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) if (!plainJson(o[i], objects)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(o);
  if ((proto !== Object.prototype && proto !== null) || "toJSON" in o) return false;
  for (const k in o) if (!plainJson(o[k], objects)) return false;
  return true;
}

/** a failed tool call: isError results carry the server, the tool and the raw MCP result */
export class ToolError extends Error {
  override name = "ToolError";
  server: string;
  tool: string;
  raw: unknown;
  code?: string;
  constructor(message: string, server: string, tool: string, raw: unknown, code?: string) {
    super(message);
    this.server = server;
    this.tool = tool;
    this.raw = raw;
    this.code = code;
  }
}

export function reviveError(e: WireError): Error {
  const d = e.data ?? {};
  if (e.name === "ToolError") return new ToolError(e.message, String(d.server ?? ""), String(d.tool ?? ""), d.raw, e.code);
  const err = new Error(e.message);
  err.name = e.name;
  (err as { code?: string }).code = e.code;
  return err;
}

/**
 * Deno's sandbox refusal ends "run again with the --allow-read flag", a flag of Deno's that the user of
 * mcpx cannot give: it names exec.sandboxAllow instead (what can be widened), or says what never is.
 */
function sandboxHint(message: string): string {
  return message.replace(/,? run again with the --allow-([a-z]+) flag\.?/, (_m, kind: string) => {
    const what = /^Requires [a-z]+ access to (".*?")/.exec(message)?.[1];
    if (["read", "write", "net", "env"].includes(kind))
      return `: the sandbox allows it only through the exec.sandboxAllow setting, e.g. {"${kind}": [${what ?? "…"}]} (docs/security.md)`;
    return `: the sandbox never allows ${kind} access (exec.sandboxAllow widens read, write, net and env only; docs/security.md)`;
  });
}

export function serializeError(err: unknown): WireError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; server?: string; tool?: string; raw?: unknown };
    const message = e.name === "NotCapable" ? sandboxHint(e.message) : e.message;
    const out: WireError = { name: e.name, message, stack: e.stack === undefined ? undefined : e.stack.replace(e.message, message) };
    if (typeof e.code === "string") out.code = e.code;
    if (err instanceof ToolError) out.data = { server: e.server, tool: e.tool, raw: e.raw };
    return out;
  }
  return { name: "Error", message: typeof err === "string" ? err : safeJson(err) };
}
