// The common case of checking a call's arguments, without ajv: most tools' input schemas are an
// object of typed properties, some required, maybe no others allowed, and most calls satisfy them.
// Loading ajv and compiling a schema costs a one-shot call CPU while its server is starting on the
// same cores (decision 0011); this answers "these arguments are valid" for such schemas in
// microseconds. It only ever answers yes or "cannot tell": any keyword outside the few it knows, any
// value it finds wrong, and the caller asks ajv, whose errors (and only its) are what a user sees.
// So it must never say yes where ajv would say no; test/unit/surely-valid.test.ts checks it against
// ajv on every schema it accepts. Keyword semantics follow ajv's generated code for draft-07 and
// 2020-12, which agree on everything here.

/** keywords that only describe: they never make a value invalid */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"]);

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** true only when `value` certainly satisfies `schema`; false when invalid or when this cannot tell */
export function surelyValid(schema: unknown, value: unknown): boolean {
  return known(schema) && validIn(schema as Schema, value);
}

type Schema = true | Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPrimitive = (v: unknown) => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
const isCount = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0;
const isSchema = (v: unknown) => v === true || (isObject(v) && known(v));

/** each keyword this knows, with what its value must be for ajv to compile it as this reads it */
const FORMS: Record<string, (arg: unknown) => boolean> = {
  type: (t) => {
    const list = Array.isArray(t) ? t : [t];
    return list.length > 0 && list.every((x) => typeof x === "string" && TYPES.has(x));
  },
  properties: (p) => isObject(p) && Object.values(p).every(isSchema),
  required: (r) => Array.isArray(r) && r.every((k) => typeof k === "string"),
  additionalProperties: (a) => a === false || isSchema(a),
  items: isSchema,
  enum: (list) => Array.isArray(list) && list.every(isPrimitive),
  const: isPrimitive,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  minimum: (n) => typeof n === "number",
  maximum: (n) => typeof n === "number",
  exclusiveMinimum: (n) => typeof n === "number",
  exclusiveMaximum: (n) => typeof n === "number",
};

const knownSchemas = new WeakMap<object, boolean>();

/** a schema made only of keywords this knows, each well formed, all the way down (remembered per schema object) */
export function known(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  let ok = knownSchemas.get(schema);
  if (ok === undefined) {
    ok = Object.entries(schema).every(([key, arg]) => ANNOTATIONS.has(key) || (Object.hasOwn(FORMS, key) && FORMS[key]!(arg)));
    knownSchemas.set(schema, ok);
  }
  return ok;
}

/** as ajv tests each JSON type */
function hasType(type: string, v: unknown): boolean {
  switch (type) {
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "integer":
      return typeof v === "number" && Number.isFinite(v) && v % 1 === 0;
    case "boolean":
      return typeof v === "boolean";
    default:
      return v === null;
  }
}

/** a string's length as ajv counts it (ucs2length): a surrogate pair is one character */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return n;
}

/** a known schema against a value; ajv reads a property as `data[key]`, so an absent one (undefined) is neither checked nor present */
function validIn(schema: Schema, v: unknown): boolean {
  if (schema === true) return true;
  const s = schema as Record<string, unknown> & { properties?: Record<string, Schema> };
  if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((t) => hasType(t as string, v))) return false;
  if (s.enum !== undefined && !(s.enum as unknown[]).includes(v)) return false;
  if (s.const !== undefined && s.const !== v) return false;
  if (typeof v === "string") {
    if (s.minLength !== undefined || s.maxLength !== undefined) {
      const n = codePoints(v);
      if (n < ((s.minLength as number | undefined) ?? 0) || n > ((s.maxLength as number | undefined) ?? Infinity)) return false;
    }
  } else if (typeof v === "number") {
    if (s.minimum !== undefined && !(v >= (s.minimum as number))) return false;
    if (s.maximum !== undefined && !(v <= (s.maximum as number))) return false;
    if (s.exclusiveMinimum !== undefined && !(v > (s.exclusiveMinimum as number))) return false;
    if (s.exclusiveMaximum !== undefined && !(v < (s.exclusiveMaximum as number))) return false;
  } else if (Array.isArray(v)) {
    if (v.length < ((s.minItems as number | undefined) ?? 0) || v.length > ((s.maxItems as number | undefined) ?? Infinity)) return false;
    if (s.items !== undefined && !v.every((x) => validIn(s.items as Schema, x))) return false;
  } else if (isObject(v)) {
    const props = s.properties ?? {};
    if (s.required !== undefined && !(s.required as string[]).every((k) => v[k] !== undefined)) return false;
    for (const key in props) if (v[key] !== undefined && !validIn(props[key]!, v[key])) return false;
    const extra = s.additionalProperties as Schema | false | undefined;
    if (extra !== undefined && extra !== true) {
      for (const key in v) if (!Object.hasOwn(props, key) && (extra === false || !validIn(extra, v[key]))) return false;
    }
  }
  return true;
}
