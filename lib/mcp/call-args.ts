// The arguments of `mcpx call SERVER.TOOL key=value …`, read the way users type them and coerced by
// the tool's input schema: `key=value` takes the type the schema gives the key (a string stays a
// string even when it looks like a number; numbers, integers, booleans and null are parsed; objects
// and arrays are read as JSON), `key:=json` is always JSON. Pure: the command does the I/O.

import { UsageError } from "../errors/usage-error.ts";
import { isPlainObject } from "../util/json-type.ts";
import { suggest } from "../util/did-you-mean.ts";

/** arguments a tool's input schema refuses, or that do not parse: exit 2 (USAGE), before the server is called */
export class ArgumentError extends UsageError {}

type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "object" | "array";

/** the JSON types a (sub)schema accepts, from type, enum/const and anyOf/oneOf; empty = it does not say */
export function schemaTypes(schema: unknown): Set<JsonType> {
  const out = new Set<JsonType>();
  if (!isPlainObject(schema)) return out;
  const t = schema.type;
  for (const x of Array.isArray(t) ? t : t === undefined ? [] : [t]) out.add(x as JsonType);
  const literals = "const" in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : [];
  for (const v of literals) out.add(v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? "number" : (typeof v as JsonType));
  for (const key of ["anyOf", "oneOf"] as const) if (Array.isArray(schema[key])) for (const s of schema[key]) for (const x of schemaTypes(s)) out.add(x);
  return out;
}

/** the schema of one argument, or undefined when the input schema does not describe it */
function propertySchema(input: unknown, key: string): unknown {
  if (!isPlainObject(input) || !isPlainObject(input.properties)) return undefined;
  return Object.hasOwn(input.properties, key) ? input.properties[key] : undefined;
}

/** what the schema says a key takes, in its own words: "number", "string | null", "one of \"fast\", \"slow\"" */
export function describeSchema(schema: unknown): string {
  if (isPlainObject(schema) && Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const types = [...schemaTypes(schema)];
  return types.length ? types.join(" | ") : "any JSON value";
}

/** coerces one `key=value` text by the key's schema; throws ArgumentError naming the key and what it takes */
export function coerceValue(key: string, text: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  if (types.size === 0 || types.has("string")) return text;
  const fail = (): never => {
    throw new ArgumentError(
      `argument ${key}=${text}: "${key}" takes ${describeSchema(schema)} (its input schema: ${JSON.stringify(schema)}); use ${key}:=JSON to give JSON exactly`,
    );
  };
  if ((types.has("number") || types.has("integer")) && text.trim() !== "" && Number.isFinite(Number(text))) {
    const n = Number(text);
    if (types.has("number") || Number.isInteger(n)) return n;
  }
  if (types.has("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.has("null") && text === "null") return null;
  if (types.has("object") || types.has("array")) {
    try {
      const v = JSON.parse(text);
      if ((types.has("object") && isPlainObject(v)) || (types.has("array") && Array.isArray(v))) return v;
    } catch {
      // reported below, with what the key takes
    }
  }
  return fail();
}

/**
 * The arguments object from `key=value` and `key:=json` items, coerced by `inputSchema`. A key given
 * twice, an item that is neither form, or JSON that does not parse is an ArgumentError naming the item.
 */
export function parseKeyValues(items: readonly string[], inputSchema: unknown): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const known = isPlainObject(inputSchema) && isPlainObject(inputSchema.properties) ? Object.keys(inputSchema.properties) : [];
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0)
      throw new ArgumentError(
        `argument "${item}" is not key=value, key:=JSON, a JSON object or - (stdin)${known.length ? `; the tool takes ${known.join(", ")}` : ""}`,
      );
    const json = item[eq - 1] === ":" && eq > 1;
    const key = item.slice(0, json ? eq - 1 : eq);
    const text = item.slice(eq + 1);
    if (Object.hasOwn(args, key)) throw new ArgumentError(`argument "${key}" is given twice: give each key once (an array is ${key}:='[1,2]')`);
    if (json) {
      try {
        args[key] = JSON.parse(text);
      } catch (e) {
        throw new ArgumentError(
          `argument ${key}:=${text} is not valid JSON (${(e as Error).message}): quote it for the shell, e.g. ${key}:='{"a":1}' or ${key}:='"text"'`,
        );
      }
    } else {
      if (known.length && !known.includes(key) && isPlainObject(inputSchema) && inputSchema.additionalProperties === false) {
        throw new ArgumentError(`unknown argument "${key}"${suggest(key, known)}: the tool takes ${known.join(", ")}`);
      }
      args[key] = coerceValue(key, text, propertySchema(inputSchema, key));
    }
  }
  return args;
}
