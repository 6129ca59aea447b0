// MCP-driven lifecycle hooks (design §5), through the binary: the fake server lists `_PreToolUse`,
// which answers FAKE_MCP_HOOK_TEXT. Only servers MCP_HOOK_SERVERS allows have it called (unset =
// none, "*" = all, otherwise a comma list where "*" is literal); non-empty text at before is an
// objection that refuses the call; a hook tool slower than hooks.mcpTimeout is no objection. The
// record file shows whether `_PreToolUse` was called at all.

import { describe, expect, test } from "bun:test";
import { execStream, expectExit, hookFrames, hookSandbox, mcpxWith, printed, recordedCalls, recordPath, tryCall } from "./hooks-support.ts";

const sb = hookSandbox();
const ECHO = 'fake.echo({ message: "hi" })';
const OBJECTION = "objection text";

describe.concurrent("an allowlisted server's _PreToolUse", () => {
  test("MCP_HOOK_SERVERS=fake: a non-empty _PreToolUse answer objects and the call is refused, never reaching the tool", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, env: { MCP_HOOK_SERVERS: "fake", FAKE_MCP_HOOK_TEXT: OBJECTION } });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(String(caught.message)).toContain(OBJECTION);
    expect(String(caught.message)).toContain("_PreToolUse");
    expect(recordedCalls(record, "_PreToolUse")).toHaveLength(1);
    expect(recordedCalls(record, "echo")).toEqual([]);
    expect(hookFrames(r.frames, { on: "call", phase: "before" })).toHaveLength(1);
  });

  test("the hook tool gets the call's payload as its arguments", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, env: { MCP_HOOK_SERVERS: "fake" } });
    expectExit(r, 0);
    const [hookCall] = recordedCalls(record, "_PreToolUse");
    expect(hookCall?.args).toMatchObject({ call: { server: "fake", tool: "echo", arguments: { message: "hi" } } });
  });

  test("MCP_HOOK_SERVERS=* allows every server: the objection refuses the call", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, env: { MCP_HOOK_SERVERS: "*", FAKE_MCP_HOOK_TEXT: OBJECTION } });
    expectExit(r, 0);
    expect(printed(r.frames)).toMatchObject({ ok: false, code: "REFUSED" });
    expect(recordedCalls(record, "echo")).toEqual([]);
  });

  test("an empty _PreToolUse answer is no objection: the hook tool is called and the call goes through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, env: { MCP_HOOK_SERVERS: "fake" } });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
    expect(recordedCalls(record).map((c) => c.tool)).toEqual(["_PreToolUse", "echo"]);
  });

  test("a dial-object answer is read as one: advice from the hook tool is attributed to it and the call goes through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), {
      record,
      env: { MCP_HOOK_SERVERS: "fake", FAKE_MCP_HOOK_TEXT: JSON.stringify({ advise: "from the server" }) },
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
    const advice = hookFrames(r.frames, { on: "call", phase: "before" }).flatMap((f) => f.advice ?? []);
    expect(advice).toHaveLength(1);
    // hook text reaches a caller only JSON-encoded with {hook, server, text} attribution
    expect(JSON.parse(advice[0]!)).toEqual({ hook: "_PreToolUse", server: "fake", text: "from the server" });
  });

  test("a _PreToolUse slower than hooks.mcpTimeout counts as no objection: the call goes through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), {
      record,
      env: { MCP_HOOK_SERVERS: "fake", FAKE_MCP_HOOK_TEXT: OBJECTION, FAKE_MCP_HOOK_DELAY: "3000", MCPX_HOOKS_MCP_TIMEOUT: "300ms" },
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
    expect(recordedCalls(record, "_PreToolUse")).toHaveLength(1);
    expect(recordedCalls(record, "echo")).toHaveLength(1);
    // no objection, but not invisible: the hook frame says it timed out
    const frame = hookFrames(r.frames, { on: "call", phase: "before" }).find((f) => f.name === "fake._PreToolUse");
    expect(frame?.failed).toBe("timed out after 300ms (hooks.mcpTimeout); no objection");
  });

  test("a second timeout in a row restarts the hook server and says so, and the call still goes through", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, `${tryCall(ECHO)}\n${tryCall(ECHO)}`, {
      record,
      env: { MCP_HOOK_SERVERS: "fake", FAKE_MCP_HOOK_TEXT: OBJECTION, FAKE_MCP_HOOK_DELAY: "3000", MCPX_HOOKS_MCP_TIMEOUT: "300ms" },
    });
    expectExit(r, 0);
    const failed = hookFrames(r.frames, { on: "call", phase: "before" })
      .filter((f) => f.name === "fake._PreToolUse")
      .map((f) => f.failed);
    expect(failed).toEqual([
      "timed out after 300ms (hooks.mcpTimeout); no objection",
      "timed out after 300ms (hooks.mcpTimeout); no objection, and the server is restarted (a second timeout in a row)",
    ]);
    expect(recordedCalls(record, "echo")).toHaveLength(2);
  });

  test("mcpx call passes the same hook tool: an objection refuses it with exit 1", async () => {
    const record = recordPath(sb);
    const r = await mcpxWith(sb, ["call", "fake.echo", '{"message":"hi"}'], { record, env: { MCP_HOOK_SERVERS: "fake", FAKE_MCP_HOOK_TEXT: OBJECTION } });
    expectExit(r, 1);
    expect(r.stderr).toContain(OBJECTION);
    expect(recordedCalls(record, "echo")).toEqual([]);
  });
});

describe.concurrent("a server MCP_HOOK_SERVERS does not allow never has its hook tool called", () => {
  for (const [label, value] of [
    ["unset", undefined],
    ["empty", ""],
    ["naming another server", "other"],
    ['"*,other" (a literal "*" inside a list)', "*,other"],
  ] as const) {
    test(`MCP_HOOK_SERVERS ${label}: no _PreToolUse in the record, and the call goes through despite the objection text`, async () => {
      const record = recordPath(sb);
      const env: Record<string, string> = { FAKE_MCP_HOOK_TEXT: OBJECTION };
      if (value !== undefined) env.MCP_HOOK_SERVERS = value;
      const r = await execStream(sb, tryCall(ECHO), { record, env });
      expectExit(r, 0);
      expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
      expect(recordedCalls(record, "_PreToolUse")).toEqual([]);
      expect(recordedCalls(record, "echo")).toHaveLength(1);
    });
  }
});
