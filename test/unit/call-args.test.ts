// `mcpx call SERVER.TOOL key=value …`: the items as users type them, coerced by the tool's input schema.

import { describe, expect, test } from "bun:test";
import { ArgumentError, coerceValue, parseKeyValues, schemaTypes } from "../../lib/mcp/call-args.ts";
import { checkArgs } from "../../lib/mcp/check-args.ts";

const SCHEMA = {
  type: "object",
  properties: {
    message: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    loud: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    target: { anyOf: [{ type: "string" }, { type: "object" }] },
    mode: { enum: ["fast", "slow"] },
    maybe: { type: ["number", "null"] },
  },
  required: ["message"],
};

describe("key=value items are coerced by the schema", () => {
  test("a string stays a string even when it looks like a number", () => {
    expect(parseKeyValues(["message=123"], SCHEMA)).toEqual({ message: "123" });
  });

  test("numbers, integers, booleans, null and JSON arrays are parsed", () => {
    expect(parseKeyValues(["count=3", "ratio=0.5", "loud=true", 'tags=["a"]', "maybe=null"], SCHEMA)).toEqual({
      count: 3,
      ratio: 0.5,
      loud: true,
      tags: ["a"],
      maybe: null,
    });
  });

  test("a union with string keeps the text; key:=JSON gives JSON exactly", () => {
    expect(parseKeyValues(['target={"id":1}'], SCHEMA)).toEqual({ target: '{"id":1}' });
    expect(parseKeyValues(['target:={"id":1}', 'message:="7"'], SCHEMA)).toEqual({ target: { id: 1 }, message: "7" });
  });

  test("a value the key's type cannot take is an error naming the key and the type", () => {
    expect(() => coerceValue("count", "1.5", { type: "integer" })).toThrow(/"count" takes integer/);
    expect(() => coerceValue("loud", "yes", { type: "boolean" })).toThrow(/"loud" takes boolean/);
    expect(() => coerceValue("tags", "a,b", { type: "array" })).toThrow(ArgumentError);
  });

  test("a key the schema does not describe stays a string; '=' inside the value is kept", () => {
    expect(parseKeyValues(["other=a=b"], SCHEMA)).toEqual({ other: "a=b" });
  });

  test("an item that is not key=value, a repeated key, and bad JSON after := are errors", () => {
    expect(() => parseKeyValues(["oops"], SCHEMA)).toThrow(/"oops" is not key=value, key:=JSON/);
    expect(() => parseKeyValues(["message=a", "message=b"], SCHEMA)).toThrow(/"message" is given twice/);
    expect(() => parseKeyValues(["tags:=[1"], SCHEMA)).toThrow(/tags:=\[1 is not valid JSON/);
  });

  test("schemaTypes reads type lists, enum, const and anyOf", () => {
    expect([...schemaTypes({ enum: ["a", 1] })].sort()).toEqual(["number", "string"]);
    expect([...schemaTypes({ const: true })]).toEqual(["boolean"]);
    expect([...schemaTypes({ oneOf: [{ type: "integer" }, { type: "null" }] })]).toEqual(["integer", "null"]);
  });
});

describe("arguments are checked against the input schema with the schema's own words", () => {
  const tool = (inputSchema: unknown) => ({ name: "t", inputSchema });

  test("a missing required key is named with its type and description", async () => {
    const p = checkArgs("s", tool({ type: "object", properties: { a: { type: "number", description: "First" } }, required: ["a"] }), {});
    await expect(p).rejects.toThrow(/argument "a" is required \(number: First\)/);
  });

  test("a wrong type names the key and the schema", async () => {
    await expect(checkArgs("s", tool(SCHEMA), { message: 1 })).rejects.toThrow(/argument "message" must be string \(the schema: \{"type":"string"\}\)/);
  });

  test("an enum lists the allowed values; an unknown key gets a did-you-mean", async () => {
    await expect(checkArgs("s", tool(SCHEMA), { message: "m", mode: "medium" })).rejects.toThrow(/"fast", "slow"/);
    await expect(
      checkArgs("s", tool({ type: "object", properties: { message: { type: "string" } }, additionalProperties: false }), { mesage: "x" }),
    ).rejects.toThrow(/unknown argument "mesage" \(did you mean message\?\)/);
  });

  test("draft 2020-12 and draft-07 schemas are both read by their own dialect", async () => {
    const d2020 = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      prefixItems: [],
      properties: { xs: { type: "array", prefixItems: [{ type: "number" }] } },
    };
    await expect(checkArgs("s", tool(d2020), { xs: ["a"] })).rejects.toThrow(/argument "xs.0" must be number/);
    const d07 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { xs: { type: "array", items: [{ type: "number" }] } } };
    await expect(checkArgs("s", tool(d07), { xs: ["a"] })).rejects.toThrow(/argument "xs.0" must be number/);
  });

  test("arguments the schema accepts pass; a schema that does not compile is a warning, not a refusal", async () => {
    expect(await checkArgs("s", tool(SCHEMA), { message: "m", count: 2 })).toBeUndefined();
    expect(await checkArgs("s", tool({ type: "object", properties: { a: { $ref: "#/nowhere" } } }), { a: 1 })).toContain("does not compile");
  });
});
