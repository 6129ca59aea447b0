// A tool and a tools/call result as mcpx reads them, and the one way to read a result's text and to
// make any value a result. A leaf: the pool, the gate's hook-tool and plugin calls, codegen and
// mcpx's own MCP server all take these shapes from here.

import { isPlainObject } from "../util/json-type.ts";

// A tool as the catalogue lists it (the MCP `Tool` shape, narrowed to what mcpx reads).
export interface Tool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

export type CallResult = { content?: unknown[]; structuredContent?: unknown; isError?: boolean; [k: string]: unknown };

/** a result's text: its text items, one per line (images and resources have none) */
export function resultText(result: CallResult): string {
  const texts = (result.content ?? []).flatMap((c) => ((c as { type?: string }).type === "text" ? [String((c as { text?: unknown }).text ?? "")] : []));
  return texts.join("\n");
}

/**
 * Any value as a tools/call result: an MCP result (it has a content array) as it came; anything
 * else, such as a value a hook's apply put in its place, as text, with an object also carried as
 * structuredContent.
 */
export function asCallResult(value: unknown): CallResult {
  if (isPlainObject(value) && Array.isArray(value.content)) return value as CallResult;
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return isPlainObject(value) ? { content: [{ type: "text", text }], structuredContent: value } : { content: [{ type: "text", text }] };
}
