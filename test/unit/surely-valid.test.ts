// lib/mcp/surely-valid.ts: its "valid" must be ajv's "valid", on every schema it claims to know; and it
// must know the schemas tools actually have, or it spares nothing. Checked against ajv in both dialects
// a call's arguments are checked in (2020-12, draft-07), on hand-written cases and on generated ones.

import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { surelyValid } from "../../lib/mcp/surely-valid.ts";

const options = { strict: false, allErrors: true, verbose: true, validateSchema: false, meta: false };
const dialects = [new Ajv2020(options), new Ajv(options)];
for (const a of dialects) addFormats(a as never);

/** what ajv says, in both dialects (they must agree on everything surelyValid knows) */
function ajvValid(schema: unknown, value: unknown): boolean[] {
  return dialects.map((a) => a.compile(schema as object)(value) as boolean);
}

const ECHO = { type: "object", properties: { message: { type: "string", description: "what to echo" } }, required: ["message"] };
const ADD = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"], additionalProperties: false };
const NESTED = {
  type: "object",
  properties: {
    mode: { type: "string", enum: ["fast", "slow"] },
    target: { type: "object", properties: { id: { type: "integer", minimum: 1 } }, required: ["id"] },
    items: { type: "array", items: { type: "object", properties: { name: { type: "string", minLength: 1 }, count: { type: "integer" } } }, maxItems: 3 },
  },
  required: ["mode"],
};

describe("surelyValid", () => {
  test("says yes to valid arguments of the schemas tools have: typed properties, required, no others, enums, bounds, arrays", () => {
    expect(surelyValid(ECHO, { message: "hi" })).toBe(true);
    expect(surelyValid(ADD, { a: 1, b: 2.5 })).toBe(true);
    expect(surelyValid(NESTED, { mode: "fast", target: { id: 3 }, items: [{ name: "x", count: 2 }] })).toBe(true);
    expect(surelyValid({ type: "object" }, {})).toBe(true);
    expect(surelyValid({ type: "object", properties: {} }, { anything: [1, { a: null }] })).toBe(true);
  });

  test("never says yes to what ajv refuses: a missing key, a wrong type, another key, a value outside the enum or bounds", () => {
    for (const [schema, value] of [
      [ECHO, {}],
      [ECHO, { message: 1 }],
      [ADD, { a: 1, b: 2, c: 3 }],
      [ADD, { a: 1, b: "2" }],
      [NESTED, { mode: "medium" }],
      [NESTED, { mode: "fast", target: { id: 0 } }],
      [NESTED, { mode: "fast", target: { id: 1.5 } }],
      [NESTED, { mode: "fast", items: [{}, {}, {}, {}] }],
      [NESTED, { mode: "fast", items: [{ name: "" }] }],
    ] as const) {
      expect(surelyValid(schema, value)).toBe(false);
      expect(ajvValid(schema, value)).toEqual([false, false]);
    }
  });

  test("cannot tell for any keyword it does not know (format, pattern, anyOf, $ref, …), nor for malformed ones: ajv decides", () => {
    for (const schema of [
      { type: "string", format: "email" },
      { type: "string", pattern: "^a" },
      { anyOf: [{ type: "string" }, { type: "number" }] },
      { $ref: "#/$defs/x", $defs: { x: { type: "string" } } },
      { type: "object", patternProperties: { "^x": { type: "string" } } },
      { type: "object", properties: { a: false } },
      { type: "object", additionalProperties: "no" },
      { type: "array", items: [{ type: "string" }] },
      { enum: [{ a: 1 }] },
      { type: [] },
      { type: "text" },
      { nullable: true },
      false,
      null,
    ]) {
      expect(surelyValid(schema, "a@b.c")).toBe(false);
      expect(surelyValid({ type: "object", properties: { x: schema } }, { x: "a@b.c" })).toBe(false);
    }
  });

  test("counts a string's length as ajv does: a surrogate pair is one character", () => {
    const two = { type: "string", maxLength: 2, minLength: 2 };
    for (const s of ["ab", "😀😀", "a😀", "😀", "abc", "\ud800"]) {
      expect(surelyValid(two, s)).toBe(ajvValid(two, s)[0]!);
    }
  });

  test("on generated schemas and values, every yes is ajv's yes, and most valid values get a yes", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
    const TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"] as const;
    const genSchema = (depth: number): Record<string, unknown> => {
      const type = depth > 2 ? pick(TYPES.slice(0, 5)) : pick(TYPES);
      const s: Record<string, unknown> = rand(5) === 0 ? { type: [type, pick(TYPES)] } : { type };
      if (type === "string" && rand(2)) Object.assign(s, { minLength: rand(3), maxLength: 1 + rand(4) });
      if (type === "string" && rand(3) === 0) s.enum = ["a", "bb", "😀"];
      if ((type === "number" || type === "integer") && rand(2))
        Object.assign(s, pick([{ minimum: rand(5) - 2 }, { maximum: rand(5) }, { exclusiveMinimum: 0 }, { exclusiveMaximum: 3 }]));
      if (type === "object") {
        const props: Record<string, unknown> = {};
        for (let i = rand(4); i > 0; i--) props[pick(["a", "b", "c", "d"])] = genSchema(depth + 1);
        s.properties = props;
        if (rand(2)) s.required = Object.keys(props).filter(() => rand(2));
        if (rand(3) === 0) s.additionalProperties = rand(2) ? false : genSchema(depth + 1);
      }
      if (type === "array") Object.assign(s, { items: genSchema(depth + 1) }, rand(2) ? { minItems: rand(2), maxItems: 1 + rand(3) } : {});
      if (rand(6) === 0) s.description = "d";
      return s;
    };
    const genValue = (depth: number): unknown => {
      switch (rand(depth > 2 ? 5 : 7)) {
        case 0:
          return pick(["", "a", "bb", "😀", "abcde", "x😀"]);
        case 1:
          return pick([0, 1, -1, 2.5, 3, 7, -0.5]);
        case 2:
          return rand(2) === 0;
        case 3:
          return null;
        case 4:
          return pick([5, "a", true]);
        case 5: {
          const o: Record<string, unknown> = {};
          for (let i = rand(4); i > 0; i--) o[pick(["a", "b", "c", "d", "e"])] = genValue(depth + 1);
          return o;
        }
        default:
          return Array.from({ length: rand(4) }, () => genValue(depth + 1));
      }
    };
    let yes = 0;
    let ajvYes = 0;
    for (let i = 0; i < 3000; i++) {
      const schema = genSchema(0);
      const value = genValue(0);
      const ajv = ajvValid(schema, value);
      expect(ajv[0]).toBe(ajv[1]!);
      if (ajv[0]) ajvYes++;
      if (surelyValid(schema, value)) {
        yes++;
        expect({ schema, value, ajv }).toEqual({ schema, value, ajv: [true, true] });
      }
    }
    // everything generated is a known schema, so every value ajv accepts must get a yes
    expect(yes).toBe(ajvYes);
    expect(yes).toBeGreaterThan(100);
  });
});
