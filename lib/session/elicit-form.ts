// The fields of an elicitation's form (its `requestedSchema`, MCP's flat object of primitives) as a
// terminal asks them, and an answer typed for one read back as the value the server expects. Pure:
// the prompts are terminal-answers.ts.

/**
 * A server's text as a terminal may show it: escape sequences and control characters removed (a
 * line break and a tab kept), so a hostile server cannot move the cursor, rewrite what the person
 * already read, retitle the window or hide part of a question.
 */
export function shown(text: string): string {
  return (
    text
      // CSI, OSC (to BEL or ST) and two-byte escapes, in their 7-bit and 8-bit forms
      .replace(/(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -~]?/g, "")
      .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "")
  );
}

/** one field to ask, in the schema's order */
export interface Field {
  key: string;
  /** the title, else the key; the description follows it */
  label: string;
  kind: "text" | "number" | "integer" | "boolean" | "select" | "multiselect";
  required: boolean;
  /** the schema's default, pre-filled: Enter takes it (SEP-1034) */
  default?: unknown;
  /** select and multiselect: the values with their titles */
  options?: { value: string; label: string }[];
  minimum?: number;
  maximum?: number;
}

type Schema = Record<string, unknown>;

/** an enum's values with their titles: `enum` (with the legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}` */
function optionsOf(s: Schema): { value: string; label: string }[] | undefined {
  if (Array.isArray(s.enum)) {
    const names = Array.isArray(s.enumNames) ? (s.enumNames as unknown[]) : [];
    return s.enum.map((v, i) => ({ value: String(v), label: shown(typeof names[i] === "string" ? `${names[i]} (${v})` : String(v)) }));
  }
  const alts = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined) as Schema[] | undefined;
  if (!alts) return undefined;
  return alts.map((a) => ({ value: String(a.const), label: shown(typeof a.title === "string" ? a.title : String(a.const)) }));
}

/** the fields of a requested schema; a property of a type a form cannot carry is asked as text */
export function formFields(schema: { properties?: Record<string, Schema>; required?: string[] } | undefined): Field[] {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([key, s]) => {
    const title = typeof s.title === "string" ? s.title : key;
    const label = shown(typeof s.description === "string" ? `${title}: ${s.description}` : title);
    const base = { key, label, required: required.has(key), ...(s.default !== undefined ? { default: s.default } : {}) };
    if (s.type === "array") return { ...base, kind: "multiselect" as const, options: optionsOf((s.items ?? {}) as Schema) ?? [] };
    const options = optionsOf(s);
    if (options) return { ...base, kind: "select" as const, options };
    if (s.type === "boolean") return { ...base, kind: "boolean" as const };
    if (s.type === "number" || s.type === "integer") {
      const bounds = { ...(typeof s.minimum === "number" ? { minimum: s.minimum } : {}), ...(typeof s.maximum === "number" ? { maximum: s.maximum } : {}) };
      return { ...base, kind: s.type, ...bounds };
    }
    return { ...base, kind: "text" as const };
  });
}

/**
 * A typed answer for a text, number or integer field: the value, nothing (an optional field left
 * empty), or why it cannot be taken (the field is asked again). Empty takes the default.
 */
export function readAnswer(field: Field, typed: string): { value?: unknown; error?: string } {
  const text = typed.trim();
  if (text === "") {
    if (field.default !== undefined) return { value: field.default };
    return field.required ? { error: `${field.key} is required` } : {};
  }
  if (field.kind === "text") return { value: typed };
  const n = Number(text);
  if (!Number.isFinite(n)) return { error: `${field.key} must be a number, got ${JSON.stringify(text)}` };
  if (field.kind === "integer" && !Number.isInteger(n)) return { error: `${field.key} must be a whole number, got ${text}` };
  if (field.minimum !== undefined && n < field.minimum) return { error: `${field.key} must be at least ${field.minimum}` };
  if (field.maximum !== undefined && n > field.maximum) return { error: `${field.key} must be at most ${field.maximum}` };
  return { value: n };
}
