// Frame order (design §3) with hooks at every phase of every point, through the binary: the
// product's own guard, checkFrameOrder (lib/exec/frame-order.ts), must find nothing wrong with the
// stream of a succeeding run, a failing one, a retried one and refused ones; and the simpler CLI
// rules in support.ts must hold too. Each run also proves the hooks were really there by the frames
// they left.

import { describe, expect, test } from "bun:test";
import { phasesOf, POINT_NAMES } from "../../lib/hooks/points.ts";
import { execStream, expectExit, hookFrames, hookSandbox, say, tryCall } from "./hooks-support.ts";
import { frameOrderProblems, productGuardProblems, type Frame } from "./support.ts";

const sb = hookSandbox({ broken: { command: "sh", args: ["-c", "exit 3"] } });

/** an advising hook at every point and phase */
const EVERY_PHASE = POINT_NAMES.flatMap((point) =>
  phasesOf(point).map((phase) => ({ name: `order-${point}-${phase}`, on: point, phase, run: say({ advise: `${point}.${phase}` }) })),
);

const BODY = [
  'console.log("body starts")',
  'log("a log line")',
  tryCall('fake.echo({ message: "hi" })'),
  tryCall('fake.fail({ message: "no" })'),
  tryCall('broken.echo({ message: "hi" })'),
  'console.error("body ends")',
].join("\n");

/** the problems both guards find, labelled */
function orderProblems(frames: Frame[]): string[] {
  return [...productGuardProblems(frames).map((p) => `checkFrameOrder: ${p}`), ...frameOrderProblems(frames).map((p) => `support: ${p}`)];
}

/** the point.phase pairs that left a hook frame */
const phasesSeen = (frames: Frame[]) => [...new Set(hookFrames(frames).map((f) => `${f.on}.${f.phase}`))].sort();

describe.concurrent("frame order holds with hooks at every phase", () => {
  test("a succeeding script: hooks at every point and phase, and the order of design §3", async () => {
    const r = await execStream(sb, `${BODY}\nexport default () => "done"`, { hooks: EVERY_PHASE });
    expectExit(r, 0);
    expect(phasesSeen(r.frames)).toEqual(
      [
        "call.before",
        "call.onError",
        "call.onSuccess",
        "call.suffix",
        "script.before",
        "script.onSuccess",
        "script.suffix",
        "server.start.before",
        "server.start.onError",
        "server.start.onSuccess",
      ].sort(),
    );
    expect(orderProblems(r.frames)).toEqual([]);
  });

  test("a failing script: onError hook frames before the error, suffix after it, and the order of design §3", async () => {
    const r = await execStream(sb, `${BODY}\nthrow new Error("the script fails")`, { hooks: EVERY_PHASE });
    expectExit(r, 1);
    expect(phasesSeen(r.frames)).toContain("script.onError");
    expect(phasesSeen(r.frames)).not.toContain("script.onSuccess");
    expect(orderProblems(r.frames)).toEqual([]);
    const types = r.frames.map((f) => (f.type === "hook" ? `hook ${f.on}.${f.phase}` : f.type));
    expect(types.slice(-3)).toEqual(["error", "hook script.suffix", "end"]);
  });

  test("a script whose onError hook retries it: the body runs again and the order still holds", async () => {
    const hooks = [...EVERY_PHASE, { name: "order-retry", on: "script", phase: "onError", run: say({ run: "retry" }), effect: "run" }];
    const r = await execStream(sb, `${BODY}\nthrow new Error("the script fails")`, { hooks, env: { MCPX_HOOKS_RETRY_BUDGET: "1" } });
    expectExit(r, 1);
    expect(hookFrames(r.frames, { name: "order-retry" })).toHaveLength(2);
    expect(r.frames.filter((f) => f.type === "stdout" && String(f.data).includes("body starts"))).toHaveLength(2);
    expect(orderProblems(r.frames)).toEqual([]);
  });

  test("a script refused at script.before: start, the before hook frames, the error and end, with nothing from the body", async () => {
    const hooks = [...EVERY_PHASE, { name: "order-refuse", on: "script", phase: "before", run: say({ refuse: "not now" }), effect: "refuse" }];
    const r = await execStream(sb, BODY, { hooks });
    expectExit(r, 77);
    expect(r.frames.some((f) => f.type === "stdout" || f.type === "call")).toBe(false);
    expect(orderProblems(r.frames)).toEqual([]);
  });

  test("a script whose success a script.onSuccess hook refuses: the order still holds", async () => {
    const hooks = [...EVERY_PHASE, { name: "order-veto", on: "script", phase: "onSuccess", run: say({ refuse: "no" }), effect: "refuse" }];
    const r = await execStream(sb, `${BODY}\nexport default () => "done"`, { hooks });
    expectExit(r, 1);
    expect(orderProblems(r.frames)).toEqual([]);
  });
});
