// What kind of JSON value something is, as validation checks it and error messages name it.

/** an object that is not null and not an array: what a JSON `{…}` parses to */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** the bare JSON type: "null", "array", "object", "string", "number", "boolean" */
export function jsonType(x: unknown): string {
  return x === null ? "null" : Array.isArray(x) ? "array" : typeof x;
}

/** the JSON type with its article, for "got …" in an error: "null", "an array", "an object", "a string" */
export function typeName(x: unknown): string {
  const t = jsonType(x);
  return t === "null" ? t : `${/^[aeiou]/.test(t) ? "an" : "a"} ${t}`;
}
