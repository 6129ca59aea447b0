// Unwrapping a tools/call result for scripts (and `mcpx call`): structuredContent as an object,
// text that parses as JSON parsed, other text as a string. The raw MCP result is reachable through
// fn.raw(args) and call(…, { raw: true }), not as a hidden property: Bun's inspect prints
// non-enumerable symbol keys, so console.log of a result would show the whole raw result too.
// Runtime-neutral: runs inside Bun, Deno and Node scripts.

/**
 * JSON text starts, after whitespace, with one of these characters; any other text is not JSON, and
 * JSON.parse would only throw, which costs a script's call more than the rest of unwrap together.
 */
const MAY_BE_JSON = /^\s*[{["\-0-9tfn]/;

/** the texts of an all-text content list, one per line; undefined for an empty list or one with anything but text */
function allText(content: Array<{ type: string; text?: string }>): string | undefined {
  // one text item is most results: its text as it is, without the lists a join needs
  if (content.length === 1) {
    const c = content[0]!;
    return c.type === "text" ? (c.text ?? "") : undefined;
  }
  const texts = content.filter((c) => c.type === "text").map((c) => c.text ?? "");
  return texts.length === content.length && texts.length > 0 ? texts.join("\n") : undefined;
}

export function unwrap(raw: unknown): unknown {
  const r = raw as { structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
  let value: unknown = raw;
  if (r && r.structuredContent !== undefined && r.structuredContent !== null) value = r.structuredContent;
  else if (Array.isArray(r?.content)) {
    const text = allText(r.content);
    // only an all-text result is unwrapped; images and resources keep the raw shape
    if (text !== undefined) {
      value = text;
      if (MAY_BE_JSON.test(text)) {
        try {
          value = JSON.parse(text);
        } catch {
          // text that only starts like JSON stays text
        }
      }
    }
  }
  return value;
}
