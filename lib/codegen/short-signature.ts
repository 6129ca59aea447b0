// A tool's arguments in one short line, for `mcpx ls SERVER`: `{ a: number, b?: string }`, each
// property's type reduced to a word or two (mcpx types SERVER.TOOL has the whole declaration).

import { toIdentifier } from "../mcp/tool-names.ts";
import { toolBindings } from "./identifiers.ts";
import { isSchemaObject, type SchemaObject } from "./schema-refs.ts";

/** more enum values than this are shown as their type */
const MAX_ENUM = 4;

/** `{ name: type, optional?: type }`, or "" when the tool takes no arguments */
function shortArgs(inputSchema: unknown): string {
  if (!isSchemaObject(inputSchema) || !isSchemaObject(inputSchema.properties)) return "";
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  const props = Object.entries(inputSchema.properties).map(([name, s]) => `${name}${required.has(name) ? "" : "?"}: ${shortType(s)}`);
  return props.length ? `{ ${props.join(", ")} }` : "";
}

/**
 * How a script calls each of a server's tools, in one line, by the tool's real name:
 * `everything.get_sum({ a: number, b: number })`, or `call("s", "t", { … })` for a tool whose
 * identifier is taken (what `mcpx ls SERVER` and `mcpx search` print).
 */
export function callLines(server: string, tools: ReadonlyArray<{ name: string; inputSchema?: unknown }>): Map<string, string> {
  const byName = new Map(toolBindings(tools.map((t) => t.name)).map((b) => [b.name, b]));
  const lines = new Map<string, string>();
  for (const t of tools) {
    const b = byName.get(t.name);
    const args = shortArgs(t.inputSchema);
    lines.set(
      t.name,
      b && !b.hiddenBecause
        ? `${toIdentifier(server)}.${b.identifier}(${args})`
        : `call(${JSON.stringify(server)}, ${JSON.stringify(t.name)}${args ? `, ${args}` : ""})`,
    );
  }
  return lines;
}

function shortType(schema: unknown): string {
  if (!isSchemaObject(schema)) return "unknown";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length <= MAX_ENUM ? schema.enum.map((v) => JSON.stringify(v)).join(" | ") : baseType(schema);
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (union) return [...new Set(union.map(shortType))].join(" | ");
  return baseType(schema);
}

function baseType(schema: SchemaObject): string {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const words = types.map((t) => {
    switch (t) {
      case "integer":
        return "number";
      case "array": {
        const item = shortType(schema.items);
        return item.includes(" ") ? `(${item})[]` : `${item}[]`;
      }
      case "string":
      case "number":
      case "boolean":
      case "object":
      case "null":
        return t;
      default:
        return "unknown";
    }
  });
  return [...new Set(words)].join(" | ");
}
