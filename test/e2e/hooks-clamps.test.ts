// The three clamps on a hook's effect, through the binary: the phase (suffix at most advise), the
// caller's hooks.autonomy and the daemon's (here: this process's) autonomy.max. A key above the
// effective level is dropped, never honoured, and reported in the hook frame's `dropped`; the
// frame's `effect` is the effective level.

import { describe, expect, test } from "bun:test";
import { execStream, expectExit, finalFrame, hookSandbox, onlyHookFrame, printed, recordedCalls, recordPath, say, tryCall } from "./hooks-support.ts";

const sb = hookSandbox();
const ECHO = 'fake.echo({ message: "hi" })';

/** the dropped entry for `key`, or a message listing what was dropped */
const droppedKey = (dropped: string[] | undefined, key: string) =>
  dropped?.find((d) => d.startsWith(`${key}:`)) ?? `no dropped entry for ${key} in ${JSON.stringify(dropped)}`;

describe.concurrent("the phase clamp", () => {
  test("apply at call.suffix is dropped and reported: suffix hooks only advise, and the result is unchanged", async () => {
    const r = await execStream(sb, tryCall(ECHO), {
      hooks: [
        {
          name: "late-rewrite",
          on: "call",
          phase: "suffix",
          run: say({ apply: { content: [{ type: "text", text: "too late" }] }, advise: "kept" }),
          effect: "apply",
        },
      ],
    });
    expectExit(r, 0);
    const frame = onlyHookFrame(r.frames, "late-rewrite");
    expect(frame.effect).toBe("advise");
    expect(frame.changed).toBe(false);
    expect(droppedKey(frame.dropped, "apply")).toStartWith("apply:");
    // the key below the clamp still acts
    expect(frame.advice).toEqual(["kept"]);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
  });

  test("apply at script.suffix is dropped and reported, and the result is unchanged", async () => {
    const r = await execStream(sb, 'export default () => "original"', {
      hooks: [{ name: "late-result", on: "script", phase: "suffix", run: say({ apply: "too late" }), effect: "apply" }],
    });
    expectExit(r, 0);
    const frame = onlyHookFrame(r.frames, "late-result");
    expect(frame.effect).toBe("advise");
    expect(droppedKey(frame.dropped, "apply")).toStartWith("apply:");
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: "original" });
  });
});

describe.concurrent("the hooks.autonomy clamp", () => {
  test("MCPX_HOOKS_AUTONOMY=advise drops a refuse: the call reaches the server and the frame names the clamp", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall('fake.delete_item({ id: "1" })'), {
      record,
      env: { MCPX_HOOKS_AUTONOMY: "advise" },
      hooks: [{ name: "no-delete", on: "call", phase: "before", run: say({ refuse: "no deleting" }), effect: "refuse" }],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "deleted 1" });
    expect(recordedCalls(record, "delete_item")).toHaveLength(1);
    const frame = onlyHookFrame(r.frames, "no-delete");
    expect(frame.effect).toBe("advise");
    const dropped = droppedKey(frame.dropped, "refuse");
    expect(dropped).toStartWith("refuse:");
    expect(dropped).toContain("hooks.autonomy");
  });

  test("--hooks-autonomy refuse drops an apply at call.before: the server gets the original arguments", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), {
      record,
      flags: ["--hooks-autonomy", "refuse"],
      hooks: [{ name: "rewrite", on: "call", phase: "before", run: say({ apply: { message: "rewritten" } }), effect: "apply" }],
    });
    expectExit(r, 0);
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "hi" }]);
    const frame = onlyHookFrame(r.frames, "rewrite");
    expect(frame).toMatchObject({ effect: "refuse", changed: false });
    expect(frame.original).toBeUndefined();
    expect(droppedKey(frame.dropped, "apply")).toContain("hooks.autonomy");
  });

  test("hooks.autonomy off drops even advice", async () => {
    const r = await execStream(sb, tryCall(ECHO), {
      env: { MCPX_HOOKS_AUTONOMY: "off" },
      hooks: [{ name: "chatty", on: "call", phase: "before", run: say({ advise: "hello" }), effect: "advise" }],
    });
    expectExit(r, 0);
    const frame = onlyHookFrame(r.frames, "chatty");
    expect(frame.effect).toBe("off");
    expect(frame.advice ?? []).toEqual([]);
    expect(droppedKey(frame.dropped, "advise")).toContain("hooks.autonomy");
  });
});

describe.concurrent("the autonomy.max clamp", () => {
  test("MCPX_AUTONOMY_MAX=advise drops a refuse at script.before: the script runs and the frame names the clamp", async () => {
    const r = await execStream(sb, 'export default () => "ran"', {
      env: { MCPX_AUTONOMY_MAX: "advise" },
      hooks: [{ name: "no-scripts", on: "script", phase: "before", run: say({ refuse: "not now" }), effect: "refuse" }],
    });
    expectExit(r, 0);
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: "ran" });
    const frame = onlyHookFrame(r.frames, "no-scripts");
    expect(frame.effect).toBe("advise");
    expect(droppedKey(frame.dropped, "refuse")).toContain("autonomy.max");
  });

  test("--autonomy-max apply drops a retry at call.onError: one upstream attempt", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall("fake.fail()"), {
      record,
      flags: ["--autonomy-max", "apply"],
      hooks: [{ name: "retrier", on: "call", phase: "onError", run: say({ run: "retry" }), effect: "run" }],
    });
    expectExit(r, 0);
    expect(recordedCalls(record, "fail")).toHaveLength(1);
    const frame = onlyHookFrame(r.frames, "retrier");
    expect(frame.effect).toBe("apply");
    expect(frame.retry ?? false).toBe(false);
    expect(droppedKey(frame.dropped, "run")).toContain("autonomy.max");
  });

  test("autonomy.max applies after hooks.autonomy: the lower of the two wins and both are named", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), {
      record,
      env: { MCPX_HOOKS_AUTONOMY: "refuse", MCPX_AUTONOMY_MAX: "advise" },
      hooks: [{ name: "rewrite-both", on: "call", phase: "before", run: say({ apply: { message: "no" }, refuse: "no" }), effect: "apply" }],
    });
    expectExit(r, 0);
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "hi" }]);
    const frame = onlyHookFrame(r.frames, "rewrite-both");
    expect(frame.effect).toBe("advise");
    for (const key of ["apply", "refuse"]) {
      const d = droppedKey(frame.dropped, key);
      expect(d).toContain("hooks.autonomy");
      expect(d).toContain("autonomy.max");
    }
  });
});
