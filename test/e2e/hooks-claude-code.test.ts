// Claude Code compatibility, through the binary: guard scripts written for Claude Code's PreToolUse
// hook, used unchanged with "compat": "claude-code", refuse an MCP call made by an mcpx script. The
// JSON style (permissionDecision "deny") and the exit-code style (exit 2, reason on stderr) both
// work; the scripts read tool_name from their stdin, so the same hook lets other tools through.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bunHook,
  execStream,
  expectExit,
  hookSandbox,
  mcpxWith,
  onlyHookFrame,
  printed,
  recordedCalls,
  recordPath,
  say,
  script,
  tryCall,
} from "./hooks-support.ts";

const sb = hookSandbox();

const denyJson = { name: "cc-deny", on: "call", phase: "before", compat: "claude-code", run: bunHook(script("cc-deny-delete.ts")), effect: "refuse" };
const denyExit2 = { name: "cc-exit2", on: "call", phase: "before", compat: "claude-code", run: ["sh", script("cc-block-exit2.sh")], effect: "refuse" };

const DELETE = 'fake.delete_item({ id: "42" })';

describe.concurrent("an unmodified Claude Code PreToolUse guard refuses MCP calls", () => {
  test("a permissionDecision deny script refuses fake.delete_item with its reason, and the server never sees the call", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(DELETE), { record, hooks: [denyJson] });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(String(caught.message)).toContain("cc-deny");
    expect(String(caught.message)).toContain("Deletes are disabled in this project (mcp__fake__delete_item");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
    expect(onlyHookFrame(r.frames, "cc-deny")).toMatchObject({ on: "call", phase: "before", effect: "refuse" });
  });

  test("mcpx call, outside any run, still gives a compat hook a session_id, as Claude Code always does", async () => {
    const seen = join(sb.dir, `cc-call-input-${crypto.randomUUID()}.json`);
    const dump = { name: "cc-dump", on: "call", phase: "before", compat: "claude-code", run: ["sh", "-c", `cat > ${seen}`] };
    const r = await mcpxWith(sb, ["call", "fake.echo", "message=hi"], { hooks: [dump] });
    expect(r.code).toBe(0);
    const input = JSON.parse(readFileSync(seen, "utf8")) as { session_id?: unknown; hook_event_name: string };
    expect(input.hook_event_name).toBe("PreToolUse");
    expect(typeof input.session_id).toBe("string");
    expect((input.session_id as string).length).toBeGreaterThan(0);
  });

  test("the same deny script lets a tool it does not guard through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall('fake.echo({ message: "hi" })'), { record, hooks: [denyJson] });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
    expect(recordedCalls(record, "echo")).toHaveLength(1);
  });

  test("an exit-2 script refuses fake.delete_item with its stderr as the reason, and the server never sees the call", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, `${tryCall(DELETE)}\n${tryCall('fake.echo({ message: "still allowed" })')}`, { record, hooks: [denyExit2] });
    expectExit(r, 0);
    const lines = r.frames
      .filter((f) => f.type === "stdout")
      .map((f) => String(f.data))
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(String(lines[0].message)).toContain("cc-exit2");
    expect(String(lines[0].message)).toContain("Blocked by policy: deleting items needs a human");
    expect(lines[1]).toEqual({ ok: true, value: "still allowed" });
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("an exit-2 script wired with compat alone, no effect, refuses as it does in Claude Code: its default effect is apply", async () => {
    const record = recordPath(sb);
    const { effect: _, ...unchanged } = denyExit2;
    const r = await execStream(sb, tryCall(DELETE), { record, hooks: [{ ...unchanged, name: "cc-exit2-plain" }] });
    expectExit(r, 0);
    expect(printed(r.frames)).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(onlyHookFrame(r.frames, "cc-exit2-plain").effect).toBe("apply");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("a deny from a compat hook whose effect is set to advise is dropped and reported, and the call goes through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(DELETE), { record, hooks: [{ ...denyJson, effect: "advise", name: "cc-deny-advise" }] });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "deleted 42" });
    const frame = onlyHookFrame(r.frames, "cc-deny-advise");
    expect(frame.effect).toBe("advise");
    expect(frame.dropped?.some((d) => d.startsWith("refuse:"))).toBe(true);
    expect(recordedCalls(record, "delete_item")).toHaveLength(1);
  });

  test("a compat hook gets Claude Code's PreToolUse input on stdin: event name, mcp__SERVER__TOOL, tool_input and the run id as session_id", async () => {
    const saved = join(sb.dir, "cc-input.json");
    const r = await execStream(sb, tryCall(DELETE), { hooks: [{ name: "cc-spy", on: "call", phase: "before", compat: "claude-code", run: say("", saved) }] });
    expectExit(r, 0);
    const input = JSON.parse(readFileSync(saved, "utf8"));
    const runId = r.frames.find((f) => f.type === "start")?.runId;
    expect(input).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "mcp__fake__delete_item",
      tool_input: { id: "42" },
      session_id: runId,
      transcript_path: "",
    });
    expect(typeof input.cwd).toBe("string");
  });

  test("a compat hook's updatedInput rewrites the arguments with no effect given, as in Claude Code", async () => {
    const record = recordPath(sb);
    const answer = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { message: "from claude code" } } };
    const r = await execStream(sb, tryCall('fake.echo({ message: "hi" })'), {
      record,
      hooks: [{ name: "cc-rewrite", on: "call", phase: "before", compat: "claude-code", run: say(answer) }],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "from claude code" });
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "from claude code" }]);
  });
});
