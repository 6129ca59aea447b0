// Reading a hook's answer: a run hook's stdout must be one JSON object or nothing; an MCP hook
// tool's text is a dial object or plain text, where plain text at before is an objection.

import { describe, expect, test } from "bun:test";
import { parseHookOutput, plainTextOutput } from "../../lib/hooks/output.ts";
import type { Phase } from "../../lib/hooks/points.ts";

describe("parseHookOutput", () => {
  const ok: Array<{ name: string; stdout: string; value: Record<string, unknown> }> = [
    { name: "empty stdout is no opinion", stdout: "", value: {} },
    { name: "whitespace-only stdout is no opinion", stdout: " \n\t\n", value: {} },
    { name: "one object is the output", stdout: '{"refuse":"no deletes"}', value: { refuse: "no deletes" } },
    { name: "a trailing newline is fine", stdout: '{"advise":"x"}\n', value: { advise: "x" } },
    { name: "pretty-printed JSON is one object too", stdout: '{\n  "apply": {"q": 1}\n}\n\n', value: { apply: { q: 1 } } },
    { name: "an empty object is no opinion", stdout: "{}", value: {} },
  ];
  for (const row of ok) test(row.name, () => expect(parseHookOutput(row.stdout)).toEqual({ ok: true, value: row.value }));

  const bad: Array<{ name: string; stdout: string; says: string }> = [
    { name: "plain text is a failure", stdout: "looks fine to me", says: "output is not one JSON object" },
    { name: "two objects are a failure", stdout: '{"advise":"a"}\n{"advise":"b"}', says: "output is not one JSON object" },
    { name: "an array is a failure", stdout: '[{"advise":"a"}]', says: "got an array" },
    { name: "a JSON string is a failure", stdout: '"refuse"', says: "got a string" },
    { name: "null is a failure", stdout: "null", says: "got null" },
    { name: "truncated JSON is a failure", stdout: '{"advise": "a', says: "output is not one JSON object" },
    { name: "text before the object is a failure", stdout: 'debug: hi\n{"advise":"a"}', says: "output is not one JSON object" },
  ];
  for (const row of bad) {
    test(row.name, () => {
      const r = parseHookOutput(row.stdout);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toContain(row.says);
    });
  }

  test("a failure quotes the output, cut short so a flood does not fill the frame", () => {
    const r = parseHookOutput("x".repeat(5000));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain("xxxx");
      expect(r.reason.length).toBeLessThan(400);
    }
  });
});

describe("plainTextOutput", () => {
  const table: Array<{ name: string; text: string; phase: Phase; value: Record<string, unknown> }> = [
    { name: "empty text is no objection", text: "", phase: "before", value: {} },
    { name: "blank text is no objection", text: "  \n", phase: "before", value: {} },
    { name: "plain text at before is an objection", text: "tests are failing\n", phase: "before", value: { refuse: "tests are failing" } },
    { name: "plain text at onSuccess is advice", text: "3 tests failing", phase: "onSuccess", value: { advise: "3 tests failing" } },
    { name: "plain text at onError is advice", text: "try again later", phase: "onError", value: { advise: "try again later" } },
    { name: "plain text at suffix is advice", text: "done", phase: "suffix", value: { advise: "done" } },
    {
      name: "a dial object is used as it is",
      text: '{"apply": {"q": 2}, "advise": "rewrote"}',
      phase: "before",
      value: { apply: { q: 2 }, advise: "rewrote" },
    },
    { name: "an empty JSON object is no opinion", text: "{}", phase: "before", value: {} },
    { name: "a JSON object with a non-dial key is plain text", text: '{"status":"ok"}', phase: "before", value: { refuse: '{"status":"ok"}' } },
    { name: "a JSON array is plain text", text: '["a"]', phase: "onSuccess", value: { advise: '["a"]' } },
    { name: "text that starts with a brace but is not JSON is plain text", text: "{oops", phase: "onSuccess", value: { advise: "{oops" } },
  ];
  for (const row of table) test(row.name, () => expect(plainTextOutput(row.text, row.phase)).toEqual(row.value));
});
