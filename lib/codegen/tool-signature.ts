// One tool as a typed async function: what the generated globals file and `mcpx types` both show.

import { jsDoc } from "./jsdoc.ts";
import { schemaToDeclarations } from "./schema-to-ts.ts";
import { isSchemaObject } from "./schema-refs.ts";
import type { Tool } from "../mcp/tool.ts";

export type { Tool };

export interface ServerTools {
  name: string;
  tools: Tool[];
  /** The tools could not be listed (server not started, nothing cached): any tool name is allowed, untyped. */
  unknownTools?: boolean;
}

// Types rendered for one tool, plus the aliases they need in the enclosing scope.
export interface ToolTypes {
  /** The argument type; `Record<string, unknown>` when the schema says nothing usable. */
  args: string;
  /** Whether `args` may be left out: the schema requires no property. */
  argsOptional: boolean;
  /** The resolved type: the outputSchema's type, else `unknown` (unwrapped at run time). */
  output: string;
  aliases: string[];
  aliasNames: string[];
}

const HINTS: Array<[string, string]> = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

// The tool's JSDoc paragraphs: its description (or annotated title), then the hints it sets to
// true, since "destructive" is worth seeing before calling.
function toolDocParagraphs(tool: Tool): string[] {
  const out: string[] = [];
  const title = tool.annotations?.title;
  const text = tool.description ?? (typeof title === "string" ? title : undefined);
  if (text !== undefined) out.push(text);
  const hints = HINTS.filter(([key]) => tool.annotations?.[key] === true).map(([, label]) => label);
  if (hints.length > 0) out.push(`Hints: ${hints.join(", ")}.`);
  return out;
}

// Whether a call may omit the arguments: nothing is required at the top level or by an allOf
// member. Requirements inside anyOf/oneOf branches are not counted: some branch may need none.
function requiresNothing(schema: unknown): boolean {
  if (!isSchemaObject(schema)) return true;
  if (Array.isArray(schema.required) && schema.required.length > 0) return false;
  return !Array.isArray(schema.allOf) || schema.allOf.every(requiresNothing);
}

export interface ToolTypesOptions {
  /** Indentation of the signature the types appear in. */
  indent: string;
  /** Indentation of the scope the aliases go to, whose existing names are `taken`. */
  aliasIndent: string;
  taken: ReadonlySet<string>;
  /** Alias names for the argument and result types, used only if their schemas recurse via "#". */
  rootNames: { args: string; output: string };
}

// Renders a tool's argument and result types and the aliases they need.
export function toolTypes(tool: Tool, options: ToolTypesOptions): ToolTypes {
  const { indent, aliasIndent, rootNames } = options;
  // Each schema keeps clear of the other's root name, which a caller may declare explicitly.
  const input = schemaToDeclarations(tool.inputSchema, {
    indent,
    aliasIndent,
    taken: new Set([...options.taken, rootNames.output]),
    rootName: rootNames.args,
  });
  const output =
    tool.outputSchema === undefined
      ? { type: "unknown", aliases: [], aliasNames: [] }
      : schemaToDeclarations(tool.outputSchema, {
          indent,
          aliasIndent,
          taken: new Set([...options.taken, ...input.aliasNames, rootNames.args]),
          rootName: rootNames.output,
        });
  return {
    // tools/call arguments are always an object, so "anything" narrows to one.
    args: input.type === "unknown" ? "Record<string, unknown>" : input.type,
    argsOptional: requiresNothing(tool.inputSchema),
    output: output.type,
    aliases: [...input.aliases, ...output.aliases],
    aliasNames: [...input.aliasNames, ...output.aliasNames],
  };
}

/** the raw MCP result `fn.raw(args)` resolves to, written out where no McpxRawResult alias is in scope */
export const RAW_RESULT_TYPE = "{ content: unknown[]; structuredContent?: unknown; isError?: boolean; _meta?: Record<string, unknown> }";

const RAW_DOC = "The raw MCP result (content, structuredContent, isError, _meta), not unwrapped. A tool error still rejects with a ToolError.";

// A tool with the tool's JSDoc: callable as `name(args)` (the unwrapped result) and as `name.raw(args)`
// (the raw MCP result). As an interface member (`prefix` "") it is a property of a callable type; as
// a declared function (`prefix` "function ") a function merged with a namespace holding `raw`.
export function toolSignature(
  tool: Tool,
  identifier: string,
  types: Pick<ToolTypes, "args" | "argsOptional" | "output">,
  indent: string,
  prefix = "",
  rawType = RAW_RESULT_TYPE,
): string {
  const args = `args${types.argsOptional ? "?" : ""}: ${types.args}`;
  const doc = jsDoc(toolDocParagraphs(tool), indent);
  const inner = indent + "  ";
  if (prefix === "") {
    return (
      `${doc}readonly ${identifier}: {\n${inner}(${args}): ` +
      `Promise<${types.output}>;\n${inner}${jsDoc([RAW_DOC], inner)}raw(${args}): ` +
      `Promise<${rawType}>;\n${indent}};`
    );
  }
  return (
    `${doc}${prefix}${identifier}(${args}): ` +
    `Promise<${types.output}>;\n${indent}namespace ${identifier} ` +
    `{\n${inner}${jsDoc([RAW_DOC], inner)}function raw(${args}): ` +
    `Promise<${rawType}>;\n${indent}}`
  );
}
