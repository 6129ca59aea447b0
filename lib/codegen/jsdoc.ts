// JSDoc comments for generated declarations. Descriptions come from MCP servers, i.e. from
// strangers: a `*/` inside one would end the comment early and turn the rest into code.

// Renders the non-empty paragraphs as one JSDoc comment followed by a newline and `indent`, ready
// to prefix a declaration, or "" when there is nothing to say.
export function jsDoc(paragraphs: ReadonlyArray<string | undefined>, indent: string): string {
  const lines = paragraphs
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .flatMap((p) => p.trim().split(/\r\n|\r|\n/))
    .map((line) => line.replace(/\*\//g, "*\\/").trimEnd());
  if (lines.length === 0) return "";
  if (lines.length === 1) return `/** ${lines[0]} */\n${indent}`;
  const body = lines.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`)).join("\n");
  return `/**\n${body}\n${indent} */\n${indent}`;
}

// The documentation MCP schemas carry on a property or definition: description (or title when
// there is none), default and deprecation. `format` and validation keywords are left out on purpose.
export function schemaDocParagraphs(schema: unknown): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [];
  const s = schema as Record<string, unknown>;
  const out: string[] = [];
  const text = typeof s.description === "string" ? s.description : typeof s.title === "string" ? s.title : undefined;
  if (text !== undefined) out.push(text);
  if ("default" in s && s.default !== undefined) out.push(`@default ${JSON.stringify(s.default)}`);
  if (s.deprecated === true) out.push("@deprecated");
  return out;
}
