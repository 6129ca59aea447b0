// The effect dial at the call point, through the binary: every level at every phase of `call` where
// the points table lets it act (advise everywhere; ask/refuse at before and onSuccess; propose and
// apply at before, onSuccess and onError; run "retry" at onError). The fake server's record file
// proves what reached it: a refused call never does, a rewritten call arrives rewritten, and a retry
// arrives once per attempt.

import { describe, expect, test } from "bun:test";
import { execStream, execText, expectExit, hookSandbox, onlyHookFrame, printed, recordedCalls, recordPath, say, tryCall } from "./hooks-support.ts";

const sb = hookSandbox();

const ECHO = 'fake.echo({ message: "hi" })';
const FAIL = 'fake.fail({ message: "upstream said no" })';

/** one hook on call.PHASE answering `answer`, declared with `effect` */
const hook = (name: string, phase: string, answer: unknown, effect: string, when: Record<string, string> = {}) => ({
  name,
  on: "call",
  phase,
  when,
  run: say(answer),
  effect,
});

describe.concurrent("advise at every call phase", () => {
  for (const [phase, expr] of [
    ["before", ECHO],
    ["onSuccess", ECHO],
    ["onError", FAIL],
    ["suffix", ECHO],
  ] as const) {
    test(`advice from a call.${phase} hook is shown on stderr and carried in its hook frame, and changes nothing`, async () => {
      const name = `advise-call-${phase}`;
      const text = `a note from call.${phase}`;
      const hooks = [hook(name, phase, { advise: text }, "advise")];
      const [plain, stream] = await Promise.all([execText(sb, tryCall(expr), { hooks }), execStream(sb, tryCall(expr), { hooks })]);
      expectExit(plain, 0);
      expect(plain.stderr).toContain(`hook ${name}`);
      expect(plain.stderr).toContain(text);

      expectExit(stream, 0);
      const frame = onlyHookFrame(stream.frames, name);
      expect(frame).toMatchObject({ on: "call", phase, name, action: "run", effect: "advise", changed: false, advice: [text] });
      expect(typeof frame.durationMs).toBe("number");
      // a hook, not a handler: the call's own outcome is what the script sees
      const seen = printed(stream.frames);
      if (phase === "onError") expect(seen).toMatchObject({ ok: false, isToolError: true });
      else expect(seen).toEqual({ ok: true, value: "hi" });
    });
  }
});

describe.concurrent("refuse and ask", () => {
  test(
    "a refusing call.before hook makes the script's call throw a catchable ToolError naming " + "the hook and its reason, and the server never sees the call",
    async () => {
      const record = recordPath(sb);
      const r = await execStream(sb, `${tryCall('fake.delete_item({ id: "1" })')}\nconsole.log(await fake.echo({ message: "carried on" }))`, {
        record,
        hooks: [hook("no-delete", "before", { refuse: "deleting is not allowed" }, "refuse", { tool: "delete_*" })],
      });
      expectExit(r, 0);
      const caught = printed(r.frames);
      expect(caught).toMatchObject({ ok: false, name: "ToolError", isToolError: true, code: "REFUSED" });
      expect(caught.message).toContain("no-delete");
      expect(caught.message).toContain("deleting is not allowed");
      expect(recordedCalls(record, "delete_item")).toEqual([]);
      // the script caught it and went on: the gate refused one call, not the run
      expect(recordedCalls(record, "echo")).toHaveLength(1);
      expect(onlyHookFrame(r.frames, "no-delete")).toMatchObject({ on: "call", phase: "before", effect: "refuse" });
      expect(r.frames.find((f) => f.type === "call" && f.tool === "delete_item")).toMatchObject({ ok: false });
    },
  );

  test("an asking call.before hook with nobody at a terminal refuses the call, and the server never sees it", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall('fake.delete_item({ id: "2" })'), {
      record,
      hooks: [hook("ask-delete", "before", { ask: "really delete?" }, "ask")],
    });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(caught.message).toContain("ask-delete");
    expect(caught.message).toContain("really delete?");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("a refusing call.onSuccess hook turns the call's success into a ToolError naming the hook", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, hooks: [hook("veto-result", "onSuccess", { refuse: "the result looks wrong" }, "refuse")] });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
    expect(caught.message).toContain("veto-result");
    expect(caught.message).toContain("the result looks wrong");
    // onSuccess runs after the server answered: the call did reach it
    expect(recordedCalls(record, "echo")).toHaveLength(1);
  });

  test("an asking call.onSuccess hook with nobody at a terminal turns the success into a failure", async () => {
    const r = await execStream(sb, tryCall(ECHO), { hooks: [hook("ask-result", "onSuccess", { ask: "keep this result?" }, "ask")] });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught).toMatchObject({ ok: false, isToolError: true });
    expect(caught.message).toContain("ask-result");
  });

  test("an uncaught refusal fails the run with exit 1 and names the hook on stderr", async () => {
    const r = await execText(sb, `await fake.delete_item({ id: "3" })`, {
      hooks: [hook("no-delete-uncaught", "before", { refuse: "not on my watch" }, "refuse")],
    });
    expectExit(r, 1);
    expect(r.stderr).toContain("no-delete-uncaught");
    expect(r.stderr).toContain("not on my watch");
  });
});

describe.concurrent("propose reports and never replaces", () => {
  test("a proposing call.before hook's arguments are reported in its frame and the server gets the original ones", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, hooks: [hook("propose-args", "before", { propose: { message: "proposed" } }, "propose")] });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "propose-args")).toMatchObject({ effect: "propose", changed: false, proposed: { message: "proposed" } });
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "hi" }]);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
  });

  test("a proposing call.onSuccess hook's result is reported in its frame and the script gets the real result", async () => {
    const proposal = { content: [{ type: "text", text: "proposed result" }] };
    const r = await execStream(sb, tryCall(ECHO), { hooks: [hook("propose-result", "onSuccess", { propose: proposal }, "propose")] });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "propose-result")).toMatchObject({ changed: false, proposed: proposal });
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
  });

  test("a proposing call.onError hook's recovery is reported in its frame and the error still reaches the script", async () => {
    const r = await execStream(sb, tryCall(FAIL), {
      hooks: [hook("propose-recovery", "onError", { propose: { content: [{ type: "text", text: "fallback" }] } }, "propose")],
    });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "propose-recovery")).toMatchObject({ changed: false, proposed: { content: [{ type: "text", text: "fallback" }] } });
    expect(printed(r.frames)).toMatchObject({ ok: false, isToolError: true });
  });
});

describe.concurrent("apply replaces", () => {
  test("an applying call.before hook replaces the arguments: the server receives the new ones and the frame carries the original", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), { record, hooks: [hook("rewrite-args", "before", { apply: { message: "rewritten" } }, "apply")] });
    expectExit(r, 0);
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "rewritten" }]);
    expect(onlyHookFrame(r.frames, "rewrite-args")).toMatchObject({ effect: "apply", changed: true, original: { message: "hi" } });
    expect(printed(r.frames)).toEqual({ ok: true, value: "rewritten" });
  });

  test("an applying call.onSuccess hook replaces the result the script gets, and the frame carries the original result", async () => {
    const r = await execStream(sb, tryCall(ECHO), {
      hooks: [hook("rewrite-result", "onSuccess", { apply: { content: [{ type: "text", text: "replaced result" }] } }, "apply")],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "replaced result" });
    const frame = onlyHookFrame(r.frames, "rewrite-result");
    expect(frame).toMatchObject({ changed: true, original: { content: [{ type: "text", text: "hi" }] } });
  });

  test("an applying call.onError hook recovers the call with its value, and the run exits 0", async () => {
    const r = await execStream(sb, `console.log(JSON.stringify(await ${FAIL}))`, {
      hooks: [hook("recover-call", "onError", { apply: { content: [{ type: "text", text: "recovered" }] } }, "apply")],
    });
    expectExit(r, 0);
    expect(printed<string>(r.frames)).toBe("recovered");
    expect(onlyHookFrame(r.frames, "recover-call")).toMatchObject({ effect: "apply", changed: true });
  });
});

describe.concurrent("run retries within hooks.retryBudget", () => {
  const retry = hook("always-retry", "onError", { run: "retry" }, "run");

  test("a call.onError hook that always says retry, with hooks.retryBudget 2, makes 3 upstream attempts and the error still propagates", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(FAIL), { record, hooks: [retry], env: { MCPX_HOOKS_RETRY_BUDGET: "2" } });
    expectExit(r, 0);
    // a budget per retry instead of per operation would give more; an off-by-one gives 2 or 4
    expect(recordedCalls(record, "fail")).toHaveLength(3);
    expect(printed(r.frames)).toMatchObject({ ok: false, isToolError: true });
    // one onError frame per failed attempt; the two that led to another attempt say so
    const frames = r.frames.filter((f) => f.type === "hook" && f.name === "always-retry");
    expect(frames).toHaveLength(3);
    expect(frames.slice(0, 2).map((f) => f.retry)).toEqual([true, true]);
  });

  test("with hooks.retryBudget 0 the same hook gets exactly one upstream attempt", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(FAIL), { record, hooks: [retry], flags: ["--hooks-retry-budget", "0"] });
    expectExit(r, 0);
    expect(recordedCalls(record, "fail")).toHaveLength(1);
  });

  test("the default hooks.retryBudget is 2: three upstream attempts", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(FAIL), { record, hooks: [retry] });
    expectExit(r, 0);
    expect(recordedCalls(record, "fail")).toHaveLength(3);
  });
});
