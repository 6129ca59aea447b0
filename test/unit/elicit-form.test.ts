// The fields of an elicitation form as the terminal asks them, and a typed answer read back as the
// value the server expects (lib/session/elicit-form.ts).

import { describe, expect, test } from "bun:test";
import { formFields, readAnswer, shown, type Field } from "../../lib/session/elicit-form.ts";

const schema = {
  properties: {
    name: { type: "string", title: "Name", description: "Your name" },
    age: { type: "integer", default: 30, minimum: 0, maximum: 150 },
    score: { type: "number", default: 95.5 },
    status: { type: "string", enum: ["active", "inactive"], default: "active" },
    pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"] },
    hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }] },
    fish: { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }] }, default: ["f1"] },
    verified: { type: "boolean", default: true },
  },
  required: ["name"],
};

describe("formFields", () => {
  test("each property becomes a field of its kind, in the schema's order, with its default and whether it is required", () => {
    const fields = formFields(schema as never);
    expect(fields.map((f) => [f.key, f.kind, f.required, f.default])).toEqual([
      ["name", "text", true, undefined],
      ["age", "integer", false, 30],
      ["score", "number", false, 95.5],
      ["status", "select", false, "active"],
      ["pet", "select", false, undefined],
      ["hero", "select", false, undefined],
      ["fish", "multiselect", false, ["f1"]],
      ["verified", "boolean", false, true],
    ]);
    expect(fields[0]!.label).toBe("Name: Your name");
  });

  test("enum titles come from enumNames, oneOf and anyOf, and the value stays the one the server sent", () => {
    const byKey = Object.fromEntries(formFields(schema as never).map((f) => [f.key, f.options]));
    expect(byKey.pet).toEqual([
      { value: "pet-1", label: "Cats (pet-1)" },
      { value: "pet-2", label: "Dogs (pet-2)" },
    ]);
    expect(byKey.hero).toEqual([{ value: "h1", label: "Superman" }]);
    expect(byKey.fish).toEqual([{ value: "f1", label: "Tuna" }]);
  });

  test("a form with no properties has no fields", () => {
    expect(formFields(undefined)).toEqual([]);
  });
});

describe("readAnswer", () => {
  const field = (f: Partial<Field>): Field => ({ key: "k", label: "k", kind: "text", required: false, ...f });

  test("Enter on an empty line takes the default (SEP-1034), of the type the schema gives", () => {
    expect(readAnswer(field({ kind: "integer", default: 30 }), "")).toEqual({ value: 30 });
    expect(readAnswer(field({ kind: "text", default: "John Doe" }), "  ")).toEqual({ value: "John Doe" });
  });

  test("an empty optional field with no default is left out, and an empty required one is asked again", () => {
    expect(readAnswer(field({}), "")).toEqual({});
    expect(readAnswer(field({ required: true }), "").error).toBe("k is required");
  });

  test("numbers are read as numbers, and a non-number, a fraction for an integer or a value out of bounds is asked again", () => {
    expect(readAnswer(field({ kind: "number" }), "3.5")).toEqual({ value: 3.5 });
    expect(readAnswer(field({ kind: "number" }), "many").error).toContain("must be a number");
    expect(readAnswer(field({ kind: "integer" }), "2.5").error).toContain("whole number");
    expect(readAnswer(field({ kind: "integer", minimum: 1 }), "0").error).toContain("at least 1");
    expect(readAnswer(field({ kind: "integer", maximum: 9 }), "10").error).toContain("at most 9");
  });

  test("text is taken as typed", () => {
    expect(readAnswer(field({}), "Ada Lovelace")).toEqual({ value: "Ada Lovelace" });
  });
});

describe("shown: a server's text as the terminal shows it", () => {
  test("cursor moves, screen clears, colours and window titles are removed, the words stay", () => {
    expect(shown("Pay \x1b[2J\x1b[Hnow\x1b[31m!\x1b[0m")).toBe("Pay now!");
    expect(shown("\x1b]0;root shell\x07name?")).toBe("name?");
    expect(shown("\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\")).toBe("link");
    expect(shown("8-bit \x9b2Jcsi")).toBe("8-bit csi");
  });

  test("a carriage return or backspace cannot overwrite what was already shown; a line break and a tab stay", () => {
    expect(shown("safe\rDANGER\b\b")).toBe("safeDANGER");
    expect(shown("one\ntwo\tthree")).toBe("one\ntwo\tthree");
  });

  test("a field's title, description and option labels are shown without escapes", () => {
    const [f] = formFields({
      properties: { pick: { type: "string", title: "Pick\x1b[8m hidden", description: "one\x1b[1A", enum: ["a"], enumNames: ["A\x1b[2K"] } },
    });
    expect(f!.label).toBe("Pick hidden: one");
    expect(f!.options).toEqual([{ value: "a", label: "A (a)" }]);
  });
});
