// JSON Schema → TypeScript (lib/codegen/schema-to-ts.ts): every keyword MCP servers emit, $ref
// recursion, and a final check that every type rendered here compiles under tsc --strict.

import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { schemaToDeclarations, schemaToTs } from "../../lib/codegen/schema-to-ts.ts";

const TSC = join(import.meta.dir, "../../node_modules/.bin/tsc");

// Every schema rendered through `ts`/`decl` is collected and compiled together at the end.
const rendered: Array<{ type: string; aliases: string[] }> = [];
function decl(schema: unknown, options?: Parameters<typeof schemaToDeclarations>[1]) {
  const d = schemaToDeclarations(schema, options);
  rendered.push(d);
  return d;
}
const ts = (schema: unknown) => decl(schema).type;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("primitives and empty schemas", () => {
  test("each JSON type becomes its TypeScript type and integer becomes number", () => {
    expect(ts({ type: "string" })).toBe("string");
    expect(ts({ type: "integer" })).toBe("number");
    expect(ts({ type: "number" })).toBe("number");
    expect(ts({ type: "boolean" })).toBe("boolean");
    expect(ts({ type: "null" })).toBe("null");
  });

  test("an empty, true, missing or unknown schema is unknown and false is never", () => {
    expect(ts({})).toBe("unknown");
    expect(ts(true)).toBe("unknown");
    expect(ts(undefined)).toBe("unknown");
    expect(ts("nonsense")).toBe("unknown");
    expect(ts({ type: "quaternion" })).toBe("unknown");
    expect(ts(false)).toBe("never");
  });

  test("format is ignored", () => {
    expect(ts({ type: "string", format: "date-time" })).toBe("string");
  });

  test("schemaToTs without options renders at the left margin", () => {
    expect(schemaToTs({ type: "array", items: { type: "string" } })).toBe("string[]");
  });
});

describe("objects", () => {
  test("properties not in required are optional and the rest are not", () => {
    expect(ts({ type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a"] })).toBe("{ a: string; b?: number }");
  });

  test("property descriptions become JSDoc and the object goes multi-line", () => {
    const t = ts({ type: "object", properties: { msg: { type: "string", description: "What to say" } }, required: ["msg"] });
    expect(t).toBe("{\n  /** What to say */\n  msg: string;\n}");
  });

  test("default and deprecated are documented, and */ in a description cannot end the comment", () => {
    const t = ts({ type: "object", properties: { n: { type: "integer", description: "evil */ text", default: 3, deprecated: true } } });
    expect(t).toContain("/**\n   * evil *\\/ text\n   * @default 3\n   * @deprecated\n   */\n  n?: number;");
  });

  test("nested objects indent by two spaces per level", () => {
    const t = decl(
      { type: "object", properties: { o: { type: "object", properties: { x: { type: "string", description: "deep" } } } } },
      { indent: "    " },
    ).type;
    expect(t).toBe("{\n      o?: {\n        /** deep */\n        x?: string;\n      };\n    }");
  });

  test("property names that are not identifiers are quoted", () => {
    expect(ts({ type: "object", properties: { "a-b": { type: "string" }, "1x": {}, $d: {} } })).toBe('{ "a-b"?: string; "1x"?: unknown; $d?: unknown }');
  });

  test("a required name without a property schema is still required, as unknown", () => {
    expect(ts({ type: "object", required: ["id"] })).toBe("{ id: unknown }");
  });

  test("additionalProperties true or a schema gives an index signature that fits the named properties", () => {
    expect(ts({ type: "object", additionalProperties: true })).toBe("{ [key: string]: unknown }");
    expect(ts({ type: "object", additionalProperties: { type: "number" } })).toBe("{ [key: string]: number }");
    // TS2411 would reject `[key: string]: number` beside `a?: string`.
    expect(ts({ type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "number" } })).toBe(
      "{ a?: string; [key: string]: number | string | undefined }",
    );
  });

  test("additionalProperties false closes the object and an object with nothing declared stays open", () => {
    expect(ts({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false })).toBe("{ a?: string }");
    expect(ts({ type: "object" })).toBe("{ [key: string]: unknown }");
    expect(ts({ type: "object", additionalProperties: false })).toBe("{ [key: string]: never }");
  });

  test("patternProperties join the index signature", () => {
    expect(ts({ type: "object", patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } } })).toBe("{ [key: string]: string | number }");
  });

  test("object keywords imply an object when type is missing", () => {
    expect(ts({ properties: { a: { type: "boolean" } } })).toBe("{ a?: boolean }");
  });
});

describe("arrays and tuples", () => {
  test("items gives an array and a union item is parenthesised", () => {
    expect(ts({ type: "array", items: { type: "string" } })).toBe("string[]");
    expect(ts({ type: "array", items: { type: ["string", "number"] } })).toBe("(string | number)[]");
    expect(ts({ type: "array" })).toBe("unknown[]");
    expect(ts({ type: "array", items: false })).toBe("[]");
  });

  test("prefixItems gives a tuple whose elements past minItems are optional, with items as the rest", () => {
    expect(ts({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false, minItems: 2 })).toBe("[string, number]");
    expect(ts({ type: "array", prefixItems: [{ type: "string" }, { enum: [1, 2] }], items: { type: "boolean" }, minItems: 1 })).toBe(
      "[string, (1 | 2)?, ...boolean[]]",
    );
    expect(ts({ type: "array", prefixItems: [{ type: "string" }] })).toBe("[string?, ...unknown[]]");
    expect(ts({ type: "array", prefixItems: [{ type: "string" }], maxItems: 1, minItems: 1 })).toBe("[string]");
  });

  test("a draft-07 items array is a tuple and additionalItems is its rest", () => {
    expect(ts({ type: "array", items: [{ type: "string" }, { type: "null" }], additionalItems: false, minItems: 2 })).toBe("[string, null]");
    expect(ts({ type: "array", items: [{ type: "string" }], additionalItems: { type: "number" }, minItems: 1 })).toBe("[string, ...number[]]");
  });
});

describe("literals, unions and intersections", () => {
  test("enum and const become literal types", () => {
    expect(ts({ type: "string", enum: ["a", "b c", 'q"'] })).toBe('"a" | "b c" | "q\\""');
    expect(ts({ enum: [1, -2.5, true, null] })).toBe("1 | -2.5 | true | null");
    expect(ts({ const: "fixed" })).toBe('"fixed"');
    expect(ts({ const: { k: [1, "x"] } })).toBe('{ k: [1, "x"] }');
    expect(ts({ enum: [] })).toBe("never");
  });

  test("a type array is a union over the same schema", () => {
    expect(ts({ type: ["string", "null"] })).toBe("string | null");
    expect(ts({ type: ["object", "null"], properties: { a: { type: "string" } } })).toBe("{ a?: string } | null");
  });

  test("anyOf and oneOf become unions, and a member that allows anything makes the union unknown", () => {
    expect(ts({ anyOf: [{ type: "string" }, { type: "number" }] })).toBe("string | number");
    expect(ts({ oneOf: [{ const: "a" }, { const: "b" }] })).toBe('"a" | "b"');
    expect(ts({ anyOf: [{ type: "string" }, {}] })).toBe("unknown");
  });

  test("allOf becomes an intersection and unions inside it are parenthesised", () => {
    expect(ts({ allOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "number" } } }] })).toBe("{ a?: string } & { b?: number }");
    expect(ts({ type: "object", properties: { a: { type: "string" } }, anyOf: [{ required: ["a"] }, { type: "null" }] })).toBe(
      "{ a?: string } & ({ a: unknown } | null)",
    );
  });

  test("nullable adds null", () => {
    expect(ts({ type: "string", nullable: true })).toBe("string | null");
    expect(ts({ type: "array", items: { type: "number" }, nullable: true })).toBe("number[] | null");
  });
});

describe("$ref", () => {
  test("a $defs reference becomes a named alias with the definition's description", () => {
    const d = decl({
      type: "object",
      properties: { p: { $ref: "#/$defs/Point" } },
      $defs: { Point: { description: "A point", type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
    });
    expect(d.type).toBe("{ p?: Point }");
    expect(d.aliases).toEqual(["/** A point */\ntype Point = { x: number };"]);
    expect(d.aliasNames).toEqual(["Point"]);
  });

  test("a draft-07 definitions reference works the same way", () => {
    const d = decl({ $ref: "#/definitions/Id", definitions: { Id: { type: "string" } } });
    expect(d).toEqual({ type: "Id", aliases: ["type Id = string;"], aliasNames: ["Id"] });
  });

  test("a recursive definition refers to itself by name instead of looping", () => {
    const d = decl({ $ref: "#/$defs/Node", $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } } });
    expect(d.type).toBe("Node");
    expect(d.aliases).toEqual(["type Node = { children?: Node[] };"]);
  });

  test("mutually recursive definitions each get one alias", () => {
    const d = decl({
      $ref: "#/$defs/A",
      $defs: { A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } }, B: { type: "array", items: { $ref: "#/$defs/A" } } },
    });
    expect(d.aliases).toEqual(["type A = { b?: B };", "type B = A[];"]);
  });

  test("a root that refers to itself with # becomes the root alias", () => {
    const d = decl({ type: "object", properties: { next: { $ref: "#" } } }, { rootName: "List" });
    expect(d).toEqual({ type: "List", aliases: ["type List = { next?: List };"], aliasNames: ["List"] });
  });

  test("a loop through unions alone, which TypeScript cannot express, is broken with unknown", () => {
    // Without the break this is `type A = B | string; type B = A;`: TS2456, circular alias.
    const d = decl({ $ref: "#/$defs/A", $defs: { A: { anyOf: [{ $ref: "#/$defs/B" }, { type: "string" }] }, B: { $ref: "#/$defs/A" } } });
    expect(d.aliases).toEqual(["type A = unknown;"]);
  });

  test("alias names avoid taken and predefined names and are made identifiers", () => {
    const d = decl(
      {
        anyOf: [{ $ref: "#/$defs/string" }, { $ref: "#/$defs/Taken" }, { $ref: "#/$defs/my-type" }],
        $defs: { string: { type: "string" }, Taken: { type: "number" }, "my-type": { type: "boolean" } },
      },
      { taken: new Set(["Taken"]) },
    );
    expect(d.aliasNames).toEqual(["string_2", "Taken_2", "my_type"]);
    expect(d.type).toBe("string_2 | Taken_2 | my_type");
  });

  test("remote, anchor and dangling references are unknown", () => {
    expect(ts({ $ref: "https://example.com/schema.json" })).toBe("unknown");
    expect(ts({ $ref: "#anchor" })).toBe("unknown");
    expect(ts({ $ref: "#/$defs/Missing" })).toBe("unknown");
  });

  test("pointer escapes in a reference are decoded", () => {
    const d = decl({ $ref: "#/$defs/a~1b", $defs: { "a/b": { type: "string" } } });
    expect(d).toEqual({ type: "a_b", aliases: ["type a_b = string;"], aliasNames: ["a_b"] });
  });

  test("a reference with sibling keywords is intersected with them", () => {
    const d = decl({
      $ref: "#/$defs/Base",
      properties: { extra: { type: "string" } },
      $defs: { Base: { type: "object", properties: { id: { type: "string" } } } },
    });
    expect(d.type).toBe("Base & { extra?: string }");
  });
});

test("a schema nested deeper than the bound renders as unknown instead of exhausting the stack", () => {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 200; i++) schema = { type: "array", items: schema };
  expect(schemaToTs(schema)).toContain("unknown");
});

// Runs last in this file: every type rendered above must compile.
test("every type rendered in this file compiles under tsc --strict", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpx-codegen-schema-"));
  dirs.push(dir);
  const body = rendered.map((d, i) => `namespace N${i} {\n${d.aliases.join("\n")}\nexport type T = ${d.type};\n}`).join("\n");
  writeFileSync(join(dir, "types.ts"), `${body}\nexport {};\n`);
  const r = spawnSync(
    TSC,
    ["--noEmit", "--strict", "--exactOptionalPropertyTypes", "--target", "esnext", "--module", "esnext", "--lib", "esnext", "types.ts"],
    { cwd: dir, encoding: "utf8" },
  );
  expect(r.stdout + r.stderr).toBe("");
  expect(r.status).toBe(0);
}, 60_000);
