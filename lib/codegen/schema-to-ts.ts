// JSON Schema (draft 2020-12 and draft-07, as MCP servers emit them) → TypeScript type expressions.
// The aim is types people can read in an editor hover, that always compile: anything we cannot
// express faithfully widens to `unknown` instead of guessing.

import { toIdentifier } from "../mcp/tool-names.ts";
import { jsDoc, schemaDocParagraphs } from "./jsdoc.ts";
import { CycleBreaker, isSchemaObject, localPointer, pointerName, resolvePointer, type SchemaObject } from "./schema-refs.ts";

// Nesting deeper than this renders as `unknown`, so a hostile or broken server cannot exhaust the
// stack. Real tool schemas stay far below it; raise it only with a test that needs more.
const MAX_SCHEMA_DEPTH = 64;

// Names a type alias can never take (TS1352-style "Type alias name cannot be 'string'").
const PREDEFINED_TYPE_NAMES = ["any", "unknown", "never", "number", "bigint", "boolean", "string", "symbol", "void", "object", "undefined"];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// Precedence of a rendered type, so unions inside intersections or arrays get parentheses.
const Prec = { Union: 0, Intersection: 1, Primary: 2 } as const;
interface Rendered {
  text: string;
  prec: 0 | 1 | 2;
}
const UNKNOWN: Rendered = { text: "unknown", prec: Prec.Primary };
const NEVER: Rendered = { text: "never", prec: Prec.Primary };
const primary = (text: string): Rendered => ({ text, prec: Prec.Primary });

export interface SchemaDeclarationOptions {
  /** Indentation of the line the type starts on; nested members are indented two more spaces. */
  indent?: string;
  /** Indentation of the scope the aliases are placed in; defaults to `indent`. */
  aliasIndent?: string;
  /** Names already used where the aliases will live; new aliases avoid them. */
  taken?: ReadonlySet<string>;
  /** Alias name for the root schema when it refers to itself with `$ref: "#"`; not in `taken`. */
  rootName?: string;
}

export interface SchemaDeclarations {
  /** The type of the schema: an expression, or the root alias name when the root is recursive. */
  type: string;
  /** `type X = …;` declarations (with JSDoc) for every `$ref` the type reaches, in first-use order. */
  aliases: string[];
  /** The names of those aliases, so a caller placing several schemas in one scope can avoid them. */
  aliasNames: string[];
}

// The type expression for a schema. `$ref`s appear as alias names; use schemaToDeclarations when
// the schema has any, to get the aliases too.
export function schemaToTs(schema: unknown, indent = ""): string {
  return schemaToDeclarations(schema, { indent }).type;
}

// The type expression for a schema plus the aliases its `$ref`s need. Recursion is fine because
// references always go through a named alias, and loops TypeScript cannot express are broken.
export function schemaToDeclarations(schema: unknown, options: SchemaDeclarationOptions = {}): SchemaDeclarations {
  const r = new SchemaRenderer(schema, options);
  const type = r.render(schema, options.indent ?? "", "#", false, 0).text;
  return r.finish(type, options.aliasIndent ?? options.indent ?? "");
}

class SchemaRenderer {
  private readonly aliases = new Map<string, string>(); // pointer → alias name, in first-use order
  private readonly taken: Set<string>;
  private readonly cycles: CycleBreaker;

  constructor(
    private readonly root: unknown,
    private readonly options: SchemaDeclarationOptions,
  ) {
    // The root name is kept free for the root even before we know it recurses, so that a
    // definition cannot take it and leave the root with a suffixed name.
    this.taken = new Set([...PREDEFINED_TYPE_NAMES, ...(options.taken ?? []), this.rootName]);
    this.cycles = new CycleBreaker(root);
  }

  // Renders the aliases (which may discover more) after the root, so the root shows first.
  finish(rootType: string, indent: string): SchemaDeclarations {
    const out: string[] = [];
    const done = new Set<string>();
    let type = rootType;
    for (let pending = [...this.aliases.keys()]; pending.length > 0; pending = [...this.aliases.keys()].filter((p) => !done.has(p))) {
      for (const pointer of pending) {
        done.add(pointer);
        const name = this.aliases.get(pointer) as string;
        const target = resolvePointer(this.root, pointer);
        // The root was rendered for its own indentation; a recursive root is rendered again for the alias scope.
        const body = this.render(target, indent, pointer, false, 0).text;
        if (pointer === "#") type = name;
        out.push(`${jsDoc(schemaDocParagraphs(target), indent)}type ${name} = ${body};`);
      }
    }
    return { type, aliases: out, aliasNames: [...this.aliases.values()] };
  }

  // `site` is the pointer of the alias being rendered and `guarded` says whether we are inside an
  // object or array, where TypeScript accepts a reference back to that alias.
  render(schema: unknown, indent: string, site: string, guarded: boolean, depth: number): Rendered {
    if (schema === false) return NEVER;
    if (!isSchemaObject(schema) || depth > MAX_SCHEMA_DEPTH) return UNKNOWN;
    const parts: Rendered[] = [];
    if (schema.$ref !== undefined) parts.push(this.ref(schema.$ref, site, guarded));
    const base = this.base(schema, indent, site, depth);
    if (base !== undefined) parts.push(base);
    const sub = (s: unknown) => this.render(s, indent, site, guarded, depth + 1);
    if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map(sub));
    for (const key of ["anyOf", "oneOf"] as const) {
      const members = schema[key];
      // oneOf's "exactly one" has no TypeScript equivalent; a union is the closest honest type.
      if (Array.isArray(members)) parts.push(members.length === 0 ? NEVER : union(members.map(sub)));
    }
    const type = intersection(parts);
    return schema.nullable === true ? union([type, primary("null")]) : type;
  }

  private ref(ref: unknown, site: string, guarded: boolean): Rendered {
    const pointer = localPointer(ref);
    if (pointer === undefined || resolvePointer(this.root, pointer) === undefined) return UNKNOWN;
    if (!guarded && this.cycles.isBroken(site, pointer)) return UNKNOWN;
    let name = this.aliases.get(pointer);
    if (name === undefined) {
      name = pointer === "#" ? this.rootName : this.allocate(toIdentifier(pointerName(pointer)));
      this.aliases.set(pointer, name);
    }
    return primary(name);
  }

  private get rootName(): string {
    return this.options.rootName ?? "Root";
  }

  private allocate(base: string): string {
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}_${n}`;
    this.taken.add(name);
    return name;
  }

  // The type given by `const`, `enum` or `type` (stated, or implied by object/array keywords).
  private base(s: SchemaObject, indent: string, site: string, depth: number): Rendered | undefined {
    if ("const" in s) return literal(s.const);
    if (Array.isArray(s.enum)) return union(s.enum.map(literal));
    let types: unknown[];
    if (typeof s.type === "string") types = [s.type];
    else if (Array.isArray(s.type)) types = s.type;
    else if (["properties", "additionalProperties", "patternProperties", "required"].some((k) => k in s)) types = ["object"];
    else if ("items" in s || "prefixItems" in s) types = ["array"];
    else return undefined;
    return union(
      types.map((t): Rendered => {
        switch (t) {
          case "string":
          case "boolean":
          case "null":
            return primary(t);
          case "number":
          case "integer":
            return primary("number");
          case "object":
            return this.object(s, indent, site, depth);
          case "array":
            return this.array(s, indent, site, depth);
          default:
            return UNKNOWN;
        }
      }),
    );
  }

  private object(s: SchemaObject, indent: string, site: string, depth: number): Rendered {
    const inner = `${indent}  `;
    const sub = (schema: unknown) => this.render(schema, inner, site, true, depth + 1);
    const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [];
    const props = isSchemaObject(s.properties) ? Object.entries(s.properties) : [];
    for (const key of required) if (!props.some(([k]) => k === key)) props.push([key, true]);
    const members: string[] = [];
    const propTypes: Rendered[] = [];
    let documented = false;
    for (const [key, schema] of props) {
      const type = sub(schema);
      const optional = !required.includes(key);
      propTypes.push(optional ? union([type, primary("undefined")]) : type);
      const doc = jsDoc(schemaDocParagraphs(schema), inner);
      documented ||= doc !== "";
      members.push(`${doc}${propertyName(key)}${optional ? "?" : ""}: ${type.text};`);
    }
    const index: Rendered[] = [];
    const extra = s.additionalProperties;
    if (extra !== undefined && extra !== false) index.push(sub(extra));
    if (isSchemaObject(s.patternProperties)) index.push(...Object.values(s.patternProperties).map(sub));
    // No additionalProperties keyword: open per JSON Schema, but an index signature beside named
    // properties would hide typos in tool arguments, so only a property-less object is left open.
    if (index.length === 0 && extra === undefined && props.length === 0) index.push(UNKNOWN);
    if (index.length === 0 && extra === false && props.length === 0) index.push(NEVER);
    if (index.length > 0) {
      // TypeScript requires every named property to fit the index signature (TS2411).
      members.push(`[key: string]: ${union([...index, ...propTypes]).text};`);
    }
    const oneLine = `{ ${members.join(" ").slice(0, -1)} }`;
    if (members.length === 0) return primary("{}");
    if (!documented && !oneLine.includes("\n") && oneLine.length <= 60) return primary(oneLine);
    return primary(`{\n${members.map((m) => `${inner}${m}`).join("\n")}\n${indent}}`);
  }

  private array(s: SchemaObject, indent: string, site: string, depth: number): Rendered {
    const sub = (schema: unknown) => this.render(schema, indent, site, true, depth + 1);
    // 2020-12 spells a tuple prefixItems + items (the rest); draft-07 spells it items[] + additionalItems.
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    if (prefix === undefined) {
      if (s.items === false) return primary("[]");
      const item = sub(s.items);
      return primary(item.prec === Prec.Primary ? `${item.text}[]` : `(${item.text})[]`);
    }
    const rest = Array.isArray(s.prefixItems) ? s.items : s.additionalItems;
    const minItems = typeof s.minItems === "number" ? s.minItems : 0;
    const elements = prefix.map((schema, i) => {
      const el = sub(schema);
      // JSON Schema does not require prefix items to be present; minItems does.
      if (i < minItems) return el.text;
      return el.prec === Prec.Primary ? `${el.text}?` : `(${el.text})?`;
    });
    const closed = rest === false || (typeof s.maxItems === "number" && s.maxItems <= prefix.length);
    if (!closed) {
      const r = sub(rest);
      elements.push(`...${r.prec === Prec.Primary ? r.text : `(${r.text})`}[]`);
    }
    return primary(`[${elements.join(", ")}]`);
  }
}

// A property key as written in a type literal: bare when it is an identifier, quoted otherwise.
export function propertyName(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

// The literal type of a JSON value (`const`/`enum` members), structurally for arrays and objects.
function literal(value: unknown): Rendered {
  if (value === null) return primary("null");
  if (typeof value === "string" || typeof value === "boolean") return primary(JSON.stringify(value));
  if (typeof value === "number") return Number.isFinite(value) ? primary(String(value)) : primary("number");
  if (Array.isArray(value)) return primary(`[${value.map((v) => literal(v).text).join(", ")}]`);
  if (isSchemaObject(value)) {
    const members = Object.entries(value).map(([k, v]) => `${propertyName(k)}: ${literal(v).text};`);
    return primary(members.length === 0 ? "{}" : `{ ${members.join(" ").slice(0, -1)} }`);
  }
  return UNKNOWN;
}

function union(members: Rendered[]): Rendered {
  const texts: string[] = [];
  for (const m of members) {
    if (m.text === "unknown") return UNKNOWN;
    if (m.text !== "never" && !texts.includes(m.text)) texts.push(m.text);
  }
  if (texts.length === 0) return NEVER;
  if (texts.length === 1) return members.find((m) => m.text === texts[0]) as Rendered;
  return { text: texts.join(" | "), prec: Prec.Union };
}

function intersection(members: Rendered[]): Rendered {
  const kept: Rendered[] = [];
  for (const m of members) {
    if (m.text === "never") return NEVER;
    if (m.text !== "unknown" && !kept.some((k) => k.text === m.text)) kept.push(m);
  }
  if (kept.length === 0) return UNKNOWN;
  if (kept.length === 1) return kept[0] as Rendered;
  return { text: kept.map((m) => (m.prec === Prec.Union ? `(${m.text})` : m.text)).join(" & "), prec: Prec.Intersection };
}
