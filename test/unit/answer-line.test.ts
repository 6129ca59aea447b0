// answerLine writes what JSON.stringify({ id, ...answer }) wrote, byte for byte, for every kind of
// answer: the launcher's decoder reads these lines (launcher/wire.ts decodeHostAnswer).

import { expect, test } from "bun:test";
import { answerLine } from "../../lib/runtime/channel.ts";
import type { CallAnswer } from "../../lib/runtime/runner.ts";

const answers: CallAnswer[] = [
  { ok: true, value: { content: [{ type: "text", text: "x" }] } },
  { ok: true, value: { content: [{ type: "text", text: 'é😀\u2028\n"' }], structuredContent: { a: [1, null, true] } } },
  { ok: true, value: "a string a hook put there" },
  { ok: true, value: null },
  { ok: true, value: 0 },
  { ok: true, value: undefined },
  { ok: true, value: { toJSON: () => ({ made: "by toJSON" }) } },
  { ok: true, value: { toJSON: () => undefined } },
  { ok: false, error: { name: "ToolError", code: "TOOL_ERROR", message: "fake.echo failed: no", data: { server: "fake", tool: "echo", raw: null } } },
];

test("every answer's line is JSON.stringify({ id, ...answer }) and a newline", () => {
  for (const [i, a] of answers.entries()) expect(answerLine(i + 1, a)).toBe(JSON.stringify({ id: i + 1, ...a }) + "\n");
});
