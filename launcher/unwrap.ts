// Unwrapping a tools/call result for scripts (and `mcpx call`): structuredContent as an object,
// text that parses as JSON parsed, other text as a string. The raw MCP result stays reachable on
// objects as the non-enumerable symbol mcpx.raw, and always through fn.raw(args).
// Runtime-neutral: runs inside Bun, Deno and Node scripts.

export const RAW = Symbol.for("mcpx.raw");

export function unwrap(raw: unknown): unknown {
  const r = raw as { structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
  let value: unknown = raw;
  if (r && r.structuredContent !== undefined && r.structuredContent !== null) value = r.structuredContent;
  else if (Array.isArray(r?.content)) {
    const texts = r.content.filter((c) => c.type === "text").map((c) => c.text ?? "");
    // only an all-text result is unwrapped; images and resources keep the raw shape
    if (texts.length === r.content.length && texts.length > 0) {
      const text = texts.join("\n");
      try {
        value = JSON.parse(text);
      } catch {
        value = text;
      }
    }
  }
  if (value && typeof value === "object" && value !== raw && !Object.hasOwn(value, RAW)) {
    Object.defineProperty(value, RAW, { value: raw, enumerable: false });
  }
  return value;
}
