// mcpx_exec's answer within mcp.maxAnswer (lib/mcpserver/exec-answer.ts): what fits goes as it is, with
// the envelope as structuredContent; what does not is cut once, in the text, within the cap as sent,
// whatever escapes the content needs and whichever part is large.

import { describe, expect, test } from "bun:test";
import { emptyEnvelope, type Envelope } from "../../lib/exec/envelope.ts";
import type { Frame } from "../../lib/exec/frames.ts";
import { execAnswer, fairShares } from "../../lib/mcpserver/exec-answer.ts";

const env = (over: Partial<Envelope>): Envelope => ({ ...emptyEnvelope(), ok: true, exitCode: 0, runId: "r", ...over });
const sent = (a: { text: string; structured?: unknown }) => Buffer.byteLength(JSON.stringify(a.text)) + Buffer.byteLength(JSON.stringify(a.structured ?? null));
const framesOf = (e: Envelope): Frame[] => [
  { type: "start", runId: "r" },
  ...e.stdout.match(/[\s\S]{1,1000}/g)!.map((data) => ({ type: "stdout", data }) as Frame),
  { type: "result", value: e.result },
  { type: "end", exitCode: 0, durationMs: 1 },
];

describe("execAnswer", () => {
  test("an answer that fits carries the text and the envelope as structuredContent, unchanged", () => {
    const e = env({ stdout: "hi\n", result: 1 });
    expect(execAnswer("text", e, [], 10_000)).toEqual({ text: "hi\nresult: 1", structured: e as never });
  });

  test("in every mode, an answer of escape-heavy output, a huge result or a huge error fits the cap as sent", () => {
    const max = 50_000;
    const cases = [
      env({ stdout: '\u0001"\\'.repeat(100_000), result: "ok" }),
      env({ stdout: "é😀".repeat(50_000), result: { big: "y".repeat(200_000) } }),
      { ...env({ stderr: "s".repeat(300_000) }), ok: false, exitCode: 1, error: { name: "Error", message: "m".repeat(300_000) } },
      env({ stdout: "x\n".repeat(100_000), logs: Array.from({ length: 5000 }, () => ({ level: "info", message: "l".repeat(50) })) }),
    ];
    for (const e of cases)
      for (const mode of ["text", "json", "stream"] as const) {
        const a = execAnswer(mode, e, framesOf({ ...e, stdout: e.stdout || "-" }), max);
        expect(sent(a)).toBeLessThanOrEqual(max);
        expect(a.structured).toBeUndefined();
        expect(a.text).toContain("mcp.maxAnswer (50000 bytes)");
      }
  });

  test("a cut string keeps its head and its tail: the end of the output, where an error usually is, is there", () => {
    const e = env({ stdout: `first line\n${"x".repeat(200_000)}\nlast line\n`, result: null });
    const a = execAnswer("text", e, [], 20_000);
    expect(a.text).toStartWith("first line\n");
    expect(a.text).toContain("last line\n");
    expect(a.text).toContain("the middle cut");
  });
});

describe("fairShares", () => {
  test("a part under an even share keeps all of it and the larger parts share the rest", () => {
    expect(fairShares({ stdout: 1000, stderr: 10, result: 500 }, 600)).toEqual({ stderr: 10, stdout: 295, result: 295 });
    expect(fairShares({ a: 5, b: 5 }, 100)).toEqual({ a: 5, b: 5 });
  });
});
