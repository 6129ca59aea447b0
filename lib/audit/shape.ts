// What the audit log keeps of a call's arguments: their shape (keys and JSON types, never values),
// and, with audit.values on, the values with every secret taken out. Pure: unit-tested directly.

/** a value's shape: its JSON type, an object's keys with theirs, an array's distinct element shapes */
export type Shape = string | { [key: string]: Shape } | Shape[];

/**
 * How deep a shape goes: below it an object or array is named by its type alone. Deep enough for
 * any tool's input schema seen so far; a bound so that a pathological argument costs a bounded walk.
 */
const SHAPE_DEPTH = 8;
/** the most distinct element shapes an array's shape lists: a heterogeneous list says so without growing the line */
const ARRAY_SHAPES = 4;
/** the most keys an object's shape lists; the rest are counted under "…" */
const OBJECT_KEYS = 64;

/** the JSON type of a leaf: "string", "number", "boolean", "null" (anything else: its typeof) */
function leafType(v: unknown): string {
  return v === null ? "null" : typeof v;
}

/** the shape of a JSON value: objects nested, arrays as the distinct shapes of their elements */
export function shapeOf(value: unknown, depth = 0): Shape {
  if (Array.isArray(value)) {
    if (depth >= SHAPE_DEPTH) return "array";
    const seen = new Map<string, Shape>();
    for (const item of value) {
      const s = shapeOf(item, depth + 1);
      const key = JSON.stringify(s);
      if (!seen.has(key)) seen.set(key, s);
      if (seen.size >= ARRAY_SHAPES) break;
    }
    return [...seen.values()];
  }
  if (typeof value === "object" && value !== null) {
    if (depth >= SHAPE_DEPTH) return "object";
    const out: Record<string, Shape> = {};
    const keys = Object.keys(value);
    for (const k of keys.slice(0, OBJECT_KEYS)) out[k] = shapeOf((value as Record<string, unknown>)[k], depth + 1);
    if (keys.length > OBJECT_KEYS) out["…"] = `${keys.length - OBJECT_KEYS} more keys`;
    return out;
  }
  return leafType(value);
}

/** what a secret's value is written as */
export const REDACTED = "[redacted]";

/**
 * Key names whose value is a secret, compared lower-case with `_`, `-` and `.` removed (so apiKey,
 * api_key and API-KEY are one). Widen freely: a false positive costs a value in the log, a miss
 * writes a secret to disk.
 */
const SECRET_KEY_PARTS = [
  "token",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "authorization",
  "apikey",
  "accesskey",
  "credential",
  "cookie",
  "privatekey",
  "sessionid",
  "bearer",
];

/** true when a key's value must never be written: its name says it holds a secret */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_.]/g, "");
  return SECRET_KEY_PARTS.some((p) => k.includes(p));
}

/**
 * The arguments with every secret taken out (audit.values): a value under a secret-looking key is
 * REDACTED whatever its type, and any string containing a known secret (mcpx's own secret settings,
 * `secrets`) has it replaced. Known secrets shorter than 4 characters are ignored: replacing "a"
 * everywhere would say which letter it is.
 */
export function redactValues(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (typeof value === "string") return scrub(value, secrets);
  if (depth >= SHAPE_DEPTH * 4) return "[too deep]";
  if (Array.isArray(value)) return value.map((v) => redactValues(v, secrets, depth + 1));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redactValues(v, secrets, depth + 1);
    return out;
  }
  return value;
}

/** `text` with every known secret in it replaced */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4 && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
