// The audit log's pure cores: the shape of arguments (keys and JSON types, never values), the
// redaction of secrets when values are kept, the reader's filters and --since, a hook's decision
// from its frame, the tap fan-out, and rotation by size in a scratch directory.

import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendAuditLine } from "../../lib/audit/audit-file.ts";
import { auditTap } from "../../lib/audit/audit-tap.ts";
import { auditLine, decisionProblem, matchesFilter, parseSince, readAudit } from "../../lib/audit/read.ts";
import type { AuditRecord } from "../../lib/audit/records.ts";
import { isSecretKey, REDACTED, redactValues, shapeOf } from "../../lib/audit/shape.ts";
import { hookDecision } from "../../lib/hooks/gate.ts";
import type { HookFrameBody } from "../../lib/hooks/types.ts";
import { fanOut, type Tap } from "../../lib/telemetry/tap.ts";

function scratch(): string {
  return mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "mcpx-audit-"));
}

describe("shapeOf", () => {
  test("an object's keys with their JSON types, nested, and never a value", () => {
    const args = { path: "/etc/passwd", n: 3, deep: { on: true, none: null }, list: ["a", "b"], rows: [{ id: 1 }, { id: 2, tag: "x" }] };
    const shape = shapeOf(args);
    expect(shape).toEqual({
      path: "string",
      n: "number",
      deep: { on: "boolean", none: "null" },
      list: ["string"],
      rows: [{ id: "number" }, { id: "number", tag: "string" }],
    });
    expect(JSON.stringify(shape)).not.toContain("passwd");
  });

  test("an empty array is [], a mixed one lists each element shape once", () => {
    expect(shapeOf({ a: [], b: [1, "x", 2, null] })).toEqual({ a: [], b: ["number", "string", "null"] });
  });

  test("depth and width are bounded: a pathological argument costs a bounded walk", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(JSON.stringify(shapeOf(deep))).toContain('"object"');
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(shapeOf(wide) as object)).toHaveLength(65);
  });
});

describe("redaction", () => {
  test("keys that name a secret, in any spelling", () => {
    for (const k of ["apiKey", "api_key", "API-KEY", "token", "accessToken", "password", "client_secret", "Authorization", "cookie"])
      expect(isSecretKey(k)).toBe(true);
    for (const k of ["message", "path", "author", "keyword", "count"]) expect(isSecretKey(k)).toBe(false);
  });

  test("values are kept, a secret key's value is redacted whatever its type, and a known secret anywhere", () => {
    const out = redactValues({ message: "hi tok-12345", nested: [{ password: { a: 1 } }], n: 1 }, ["tok-12345", "ab"]);
    expect(out).toEqual({ message: `hi ${REDACTED}`, nested: [{ password: REDACTED }], n: 1 });
  });
});

describe("filters", () => {
  const now = Date.parse("2026-06-01T12:00:00Z");
  const call: AuditRecord = {
    ts: "2026-06-01T11:30:00.000Z",
    kind: "call",
    server: "fs",
    tool: "write",
    args: {},
    ok: true,
    isError: false,
    durationMs: 1,
  };
  const hook: AuditRecord = {
    ts: "2026-06-01T11:59:00.000Z",
    kind: "hook",
    point: "call",
    phase: "before",
    name: "guard",
    action: "run",
    effect: "refuse",
    decision: "refuse",
    server: "fs",
    tool: "write",
    durationMs: 2,
  };
  const run: AuditRecord = { ts: "2026-06-01T11:59:30.000Z", kind: "run", runtime: "auto", ok: true, exitCode: 0, durationMs: 3 };

  test("--since takes a duration back from now, days, or an ISO time, and names the forms otherwise", () => {
    expect(parseSince("1h", now)).toBe(now - 3_600_000);
    expect(parseSince("2d", now)).toBe(now - 2 * 86_400_000);
    expect(parseSince("2026-06-01T11:45:00Z", now)).toBe(Date.parse("2026-06-01T11:45:00Z"));
    expect(parseSince("yesterday", now)).toContain("like 30s, 15m, 1h or 7d");
    expect(parseSince("2026-13-45", now)).toBeTypeOf("string");
  });

  test("a time, a server, a tool and a decision each keep only the records that match", () => {
    const all = [call, hook, run];
    expect(all.filter((r) => matchesFilter(r, { since: now - 15 * 60_000 }))).toEqual([hook, run]);
    expect(all.filter((r) => matchesFilter(r, { server: "fs" }))).toEqual([call, hook]);
    expect(all.filter((r) => matchesFilter(r, { tool: "read" }))).toEqual([]);
    expect(all.filter((r) => matchesFilter(r, { decision: "refuse" }))).toEqual([hook]);
    expect(decisionProblem("refused")).toContain("use one of allow, advise, propose, apply, retry, ask, refuse, fail, skip");
    expect(decisionProblem("refuse")).toBeUndefined();
  });

  test("a text line is tab-separated: time, kind, run, door/caller, what, outcome, duration, detail", () => {
    expect(auditLine(hook).split("\t")).toEqual([hook.ts, "hook", "-", "-/-", "call.before guard fs.write", "refuse", "2ms", ""]);
  });
});

describe("hookDecision", () => {
  const frame = (extra: Partial<HookFrameBody> = {}): HookFrameBody => ({
    on: "call",
    phase: "before",
    action: "run",
    effect: "refuse",
    durationMs: 1,
    changed: false,
    ...extra,
  });

  test("the strongest thing the hook did", () => {
    expect(hookDecision(frame(), "open")).toBe("allow");
    expect(hookDecision(frame({ advice: ["x"] }), "open")).toBe("advise");
    expect(hookDecision(frame({ advice: ["x"], proposed: 1 }), "open")).toBe("propose");
    expect(hookDecision(frame({ changed: true }), "open")).toBe("apply");
    expect(hookDecision(frame({ retry: true, changed: true }), "open")).toBe("retry");
    expect(hookDecision(frame({ advice: ["x"] }), "open", "refuse")).toBe("refuse");
    expect(hookDecision(frame(), "open", "ask")).toBe("ask");
    expect(hookDecision(frame({ skipped: "no model" }), "open")).toBe("skip");
  });

  test("a failure lets the operation go on unless the hook fails closed, which refuses", () => {
    expect(hookDecision(frame({ failed: "exit 1" }), "open")).toBe("fail");
    expect(hookDecision(frame({ failed: "exit 1" }), "closed")).toBe("refuse");
  });
});

describe("the tap", () => {
  test("fanOut of none is undefined (the points' if costs nothing), of one is that one, of several tells each in order", () => {
    expect(fanOut([undefined])).toBeUndefined();
    const told: string[] = [];
    const tap = (name: string): Tap => ({
      run: () => ({ end: () => told.push(`${name} run end`) }),
      call: () => ({ end: () => told.push(`${name} call end`) }),
      hook: () => told.push(`${name} hook`),
    });
    const one = tap("a");
    expect(fanOut([one, undefined])).toBe(one);
    const both = fanOut([tap("a"), tap("b")])!;
    both.run({ runId: "r", door: "cli", caller: "user", runtime: "auto" }).end({ ok: true, exitCode: 0, durationMs: 1 });
    both.hook({ point: "call", phase: "before", name: "h", action: "run", effect: "advise", decision: "allow", durationMs: 1 });
    expect(told).toEqual(["a run end", "b run end", "a hook", "b hook"]);
  });

  test("a call inside a run carries the run's door and caller; a failure to write is said once, and the run goes on", () => {
    const dir = scratch();
    const warned: string[] = [];
    const tap = auditTap({ dir, maxBytes: 0, keep: 1, values: false, secrets: [], warn: (m) => warned.push(m) });
    const run = tap.run({ runId: "r1", door: "mcp", caller: "agent", runtime: "deno" });
    tap.call({ runId: "r1", server: "s", tool: "t", args: { q: "secret text" } }).end({ ok: true, durationMs: 1, isError: false });
    run.end({ ok: true, exitCode: 0, durationMs: 2 });
    const { records } = readAudit(dir, {});
    expect(records.map((r) => [r.kind, r.door, r.caller])).toEqual([
      ["call", "mcp", "agent"],
      ["run", "mcp", "agent"],
    ]);
    expect(readFileSync(join(dir, "audit.jsonl"), "utf8")).not.toContain("secret text");
    rmSync(dir, { recursive: true, force: true });
    const broken = auditTap({ dir: "/proc/no-such-dir/audit", maxBytes: 0, keep: 1, values: false, secrets: [], warn: (m) => warned.push(m) });
    broken.hook({ point: "call", phase: "before", name: "h", action: "run", effect: "advise", decision: "allow", durationMs: 1 });
    broken.hook({ point: "call", phase: "before", name: "h", action: "run", effect: "advise", decision: "allow", durationMs: 1 });
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("audit.enabled false");
  });
});

describe("rotation", () => {
  test("past maxBytes the live file becomes audit.1, older ones shift, and only `keep` are kept", () => {
    const dir = scratch();
    const opts = { dir, maxBytes: 50, keep: 2 };
    const line = (n: number) => JSON.stringify({ ts: new Date(n).toISOString(), n });
    for (let n = 0; n < 5; n++) appendAuditLine(opts, line(n));
    // each line is 40 bytes: two do not fit in 50, so every append after the first rotates
    expect(readdirSync(dir).sort()).toEqual(["audit.1.jsonl", "audit.2.jsonl", "audit.jsonl"]);
    expect(readFileSync(join(dir, "audit.jsonl"), "utf8")).toBe(line(4) + "\n");
    expect(readFileSync(join(dir, "audit.2.jsonl"), "utf8")).toBe(line(2) + "\n");
    expect(statSync(join(dir, "audit.jsonl")).mode & 0o777).toBe(0o600);
    const { records } = readAudit(dir, {});
    expect(records.map((r) => (r as unknown as { n: number }).n)).toEqual([2, 3, 4]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a line longer than maxBytes is still written whole, into a file of its own", () => {
    const dir = scratch();
    appendAuditLine({ dir, maxBytes: 10, keep: 1 }, JSON.stringify({ ts: "x", long: "y".repeat(100) }));
    expect(readdirSync(dir)).toEqual(["audit.jsonl"]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a line that is not a record is counted, not silently dropped", () => {
    const dir = scratch();
    appendAuditLine({ dir, maxBytes: 0, keep: 1 }, '{"ts":"2026-01-01T00:00:00Z","kind":"run"');
    appendAuditLine({ dir, maxBytes: 0, keep: 1 }, JSON.stringify({ ts: "2026-01-01T00:00:00Z", kind: "run" }));
    expect(readAudit(dir, {}).skipped).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });
});
