// Claude Code compatibility: an unmodified Claude Code hook script gets the stdin it expects at the
// call point, and its answer (exit code, hookSpecificOutput, decision) becomes the right dial keys.

import { describe, expect, test } from "bun:test";
import { fromClaudeCodeOutput, toClaudeCodeInput } from "../../lib/hooks/claude-code.ts";
import type { HookOutput } from "../../lib/hooks/output.ts";
import type { Phase } from "../../lib/hooks/points.ts";

const call = { server: "fs", tool: "delete_file", arguments: { path: "/tmp/x" } };

describe("toClaudeCodeInput", () => {
  test("call.before is PreToolUse with mcp__SERVER__TOOL and the arguments as tool_input", () => {
    expect(toClaudeCodeInput("call", "before", { runId: "r1", call }, "/work")).toEqual({
      session_id: "r1",
      hook_event_name: "PreToolUse",
      tool_name: "mcp__fs__delete_file",
      tool_input: { path: "/tmp/x" },
      cwd: "/work",
      transcript_path: "",
    });
  });

  test("call.onSuccess is PostToolUse carrying the result as tool_response", () => {
    const result = { content: [{ type: "text", text: "deleted" }] };
    expect(toClaudeCodeInput("call", "onSuccess", { runId: "r1", call, result }, "/w")).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_response: result,
    });
  });

  test("call.onError is PostToolUseFailure carrying the error message as a string", () => {
    const input = toClaudeCodeInput("call", "onError", { runId: "r1", call, error: { name: "ToolError", message: "no such file" } }, "/w");
    expect(input).toMatchObject({ hook_event_name: "PostToolUseFailure", error: "no such file" });
    expect(input).not.toHaveProperty("tool_response");
  });

  test("a call without arguments gives an empty tool_input, never undefined", () => {
    expect(toClaudeCodeInput("call", "before", { runId: "r", call: { server: "a", tool: "b" } }, "/")!.tool_input).toEqual({});
  });

  const none: Array<{ name: string; point: string; phase: Phase }> = [
    { name: "call.suffix has no Claude Code event", point: "call", phase: "suffix" },
    { name: "script.before has no Claude Code event", point: "script", phase: "before" },
    { name: "server.start.before has no Claude Code event", point: "server.start", phase: "before" },
    { name: "observe has no Claude Code event", point: "call.finished", phase: "observe" },
  ];
  for (const row of none) test(row.name, () => expect(toClaudeCodeInput(row.point, row.phase, { runId: "r", call }, "/")).toBeUndefined());

  test("a call-point payload without a call gives nothing rather than a half-filled input", () => {
    expect(toClaudeCodeInput("call", "before", { runId: "r" }, "/")).toBeUndefined();
  });
});

describe("fromClaudeCodeOutput", () => {
  const j = (x: unknown) => JSON.stringify(x);
  const ok = (value: Record<string, unknown>): HookOutput => ({ ok: true, value });
  const table: Array<{ name: string; phase: Phase; exit: number; stdout?: string; stderr?: string; out: HookOutput }> = [
    { name: "exit 0 with nothing is no opinion", phase: "before", exit: 0, out: ok({}) },
    {
      name: "exit 2 refuses with stderr as the reason",
      phase: "before",
      exit: 2,
      stderr: "rm -rf is not allowed\n",
      out: ok({ refuse: "rm -rf is not allowed" }),
    },
    { name: "exit 2 with empty stderr refuses with a default reason", phase: "before", exit: 2, out: ok({ refuse: "blocked by hook" }) },
    { name: "exit 2 at onSuccess turns the success into a refusal", phase: "onSuccess", exit: 2, stderr: "bad result", out: ok({ refuse: "bad result" }) },
    { name: "exit 2 at onError is advice: the error propagates anyway", phase: "onError", exit: 2, stderr: "noted", out: ok({ advise: "noted" }) },
    {
      name: "exit 2 ignores stdout, as Claude Code does",
      phase: "before",
      exit: 2,
      stdout: j({ hookSpecificOutput: { permissionDecision: "allow" } }),
      stderr: "no",
      out: ok({ refuse: "no" }),
    },
    {
      name: "another non-zero exit is a hook failure carrying stderr",
      phase: "before",
      exit: 1,
      stderr: "jq: not found\n",
      out: { ok: false, reason: "exit 1: jq: not found" },
    },
    { name: "a non-zero exit without stderr is still a failure", phase: "before", exit: 127, out: { ok: false, reason: "exit 127" } },
    {
      name: "permissionDecision deny refuses with permissionDecisionReason",
      phase: "before",
      exit: 0,
      stdout: j({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "Destructive command blocked by hook" },
      }),
      out: ok({ refuse: "Destructive command blocked by hook" }),
    },
    {
      name: "deny without a reason still refuses",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { permissionDecision: "deny" } }),
      out: ok({ refuse: "denied by hook" }),
    },
    {
      name: "permissionDecision ask asks",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "really delete?" } }),
      out: ok({ ask: "really delete?" }),
    },
    {
      name: "permissionDecision allow is no opinion",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } }),
      out: ok({}),
    },
    {
      name: "permissionDecision defer is no opinion",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { permissionDecision: "defer" } }),
      out: ok({}),
    },
    {
      name: "an unknown permissionDecision is a failure",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { permissionDecision: "maybe" } }),
      out: { ok: false, reason: 'unknown permissionDecision "maybe": Claude Code accepts allow, deny, ask, defer' },
    },
    {
      name: "updatedInput at before applies the new arguments",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { path: "/tmp/safe" } } }),
      out: ok({ apply: { path: "/tmp/safe" } }),
    },
    {
      name: "updatedInput after the call means nothing and is not applied to the result",
      phase: "onSuccess",
      exit: 0,
      stdout: j({ hookSpecificOutput: { updatedInput: { a: 1 } } }),
      out: ok({}),
    },
    {
      name: "updatedMCPToolOutput at onSuccess replaces the result",
      phase: "onSuccess",
      exit: 0,
      stdout: j({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: { content: [] } } }),
      out: ok({ apply: { content: [] } }),
    },
    {
      name: 'decision "block" with a reason refuses at before',
      phase: "before",
      exit: 0,
      stdout: j({ decision: "block", reason: "nope" }),
      out: ok({ refuse: "nope" }),
    },
    {
      name: 'decision "block" with a reason refuses at onSuccess',
      phase: "onSuccess",
      exit: 0,
      stdout: j({ decision: "block", reason: "bad output" }),
      out: ok({ refuse: "bad output" }),
    },
    {
      name: 'decision "block" at onError is advice',
      phase: "onError",
      exit: 0,
      stdout: j({ decision: "block", reason: "flaky" }),
      out: ok({ advise: "flaky" }),
    },
    { name: 'the deprecated decision "approve" is no opinion', phase: "before", exit: 0, stdout: j({ decision: "approve" }), out: ok({}) },
    {
      name: "an unknown decision is a failure",
      phase: "before",
      exit: 0,
      stdout: j({ decision: "deny" }),
      out: { ok: false, reason: 'unknown decision "deny": Claude Code accepts "block" (or the deprecated "approve")' },
    },
    {
      name: "continue false refuses with stopReason",
      phase: "before",
      exit: 0,
      stdout: j({ continue: false, stopReason: "stop everything" }),
      out: ok({ refuse: "stop everything" }),
    },
    {
      name: "additionalContext is advice",
      phase: "onSuccess",
      exit: 0,
      stdout: j({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "file was large" } }),
      out: ok({ advise: "file was large" }),
    },
    {
      name: "additionalContext at onError is advice",
      phase: "onError",
      exit: 0,
      stdout: j({ hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "retry with sudo" } }),
      out: ok({ advise: "retry with sudo" }),
    },
    { name: "systemMessage is advice", phase: "before", exit: 0, stdout: j({ systemMessage: "heads up" }), out: ok({ advise: "heads up" }) },
    {
      name: "deny, block and context together: one refusal, the rest as advice",
      phase: "before",
      exit: 0,
      stdout: j({
        decision: "block",
        reason: "second",
        systemMessage: "note",
        hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "first", additionalContext: "ctx" },
      }),
      out: ok({ refuse: "first", advise: "second\nctx\nnote" }),
    },
    {
      name: "the same reason from deny and block is one refusal",
      phase: "before",
      exit: 0,
      stdout: j({ decision: "block", reason: "x", hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "x" } }),
      out: ok({ refuse: "x" }),
    },
    {
      name: "exit 0 with plain text is advice, as Claude Code shows it",
      phase: "before",
      exit: 0,
      stdout: "checked 3 files\n",
      out: ok({ advise: "checked 3 files" }),
    },
    { name: "exit 0 with a JSON number is plain text", phase: "onSuccess", exit: 0, stdout: "42", out: ok({ advise: "42" }) },
    {
      name: "a hookEventName for another event is a failure",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: { hookEventName: "PostToolUse", permissionDecision: "deny" } }),
      out: { ok: false, reason: 'hookSpecificOutput.hookEventName is "PostToolUse", expected "PreToolUse"' },
    },
    {
      name: "a hookSpecificOutput that is not an object is a failure",
      phase: "before",
      exit: 0,
      stdout: j({ hookSpecificOutput: "deny" }),
      out: { ok: false, reason: "hookSpecificOutput is not an object" },
    },
    { name: "fields Claude Code ignores are ignored (suppressOutput)", phase: "before", exit: 0, stdout: j({ suppressOutput: true }), out: ok({}) },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(fromClaudeCodeOutput(row.phase, row.exit, row.stdout ?? "", row.stderr ?? "")).toEqual(row.out);
    });
  }
});
