// stableStringify: JSON with object keys sorted at every depth, so equal arguments give one argsHash
// whatever order they were built in.

import { expect, test } from "bun:test";
import { stableStringify } from "../../lib/util/stable-json.ts";

test("key order does not change the text", () => {
  expect(stableStringify({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  expect(stableStringify({ a: 2, b: 1 })).toBe(stableStringify({ b: 1, a: 2 }));
});

test("nested objects are sorted too, including objects inside arrays", () => {
  expect(stableStringify({ z: { y: 1, x: [{ d: 1, c: 2 }] }, a: null })).toBe('{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}');
});

test("array order is kept: it is data, not layout", () => {
  expect(stableStringify([3, 1, 2])).toBe("[3,1,2]");
  expect(stableStringify([3, 1, 2])).not.toBe(stableStringify([1, 2, 3]));
});

test("primitives are plain JSON", () => {
  for (const v of [null, 0, -1.5, "s", true, false, "é😀\n"]) expect(stableStringify(v)).toBe(JSON.stringify(v));
});

test("it is JSON: undefined members are dropped and dates become ISO strings", () => {
  expect(stableStringify({ b: undefined, a: new Date("2026-01-01T00:00:00.000Z") })).toBe('{"a":"2026-01-01T00:00:00.000Z"}');
});

test("string keys sort by code unit, so the order does not depend on the locale", () => {
  expect(stableStringify({ b: 1, é: 0, B: 2, a: 3 })).toBe('{"B":2,"a":3,"b":1,"é":0}');
});

test("integer-like keys come first in numeric order (the engine's rule), whatever the insertion order", () => {
  expect(stableStringify({ b: 1, "10": 4, "9": 5 })).toBe('{"9":5,"10":4,"b":1}');
  expect(stableStringify({ "9": 5, b: 1, "10": 4 })).toBe(stableStringify({ b: 1, "10": 4, "9": 5 }));
});

test("the text parses back to an equal value", () => {
  const v = { tool: "echo", args: { message: "hi", opts: { b: [1, { y: 2, x: 1 }], a: "" } } };
  expect(JSON.parse(stableStringify(v))).toEqual(v);
});
