// "Every call passes the gate" (decision 0016), for the calls hooks make: a plugin hook's tool call and a
// module hook's script calls pass the call point (a refusing call guard refuses them, and the server
// never sees them), each leaves a call frame in the run's stream (with `by` naming the hook) and a
// call.finished event, a call hook that calls a tool does not fire itself again for that call, and
// a chain of hooks calling tools ends at MAX_HOOK_CALL_DEPTH with an error naming the bound.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { checkFrameOrder } from "../../lib/exec/frame-order.ts";
import type { Frame as ProductFrame } from "../../lib/exec/frames.ts";
import { MAX_HOOK_CALL_DEPTH } from "../../lib/hooks/call-chain.ts";
import { fakeServer } from "./harness.ts";
import {
  copyScript,
  execStream,
  expectExit,
  hookFrames,
  hookSandbox,
  mcpxWith,
  onlyHookFrame,
  printed,
  recordedCalls,
  recordPath,
  say,
  tryCall,
} from "./hooks-support.ts";

const sb = hookSandbox();
const CALLING_MODULE = copyScript(sb, "calling-module.ts");
/** a call guard that refuses every call of fake.echo */
const GUARD = {
  name: "guard",
  on: "call",
  phase: "before",
  when: { server: "fake", tool: "echo" },
  run: say({ refuse: "echo is not allowed" }),
  effect: "refuse",
};
const callFrames = (frames: Array<Record<string, unknown>>) => frames.filter((f) => f.type === "call");

describe.concurrent("a hook's own calls pass the gate", () => {
  test("a plugin hook's call is refused by a refusing call guard, the server never sees it, and it leaves a call frame naming the hook", async () => {
    const record = recordPath(sb);
    const plug = { name: "plug", on: "script", phase: "before", plugin: "fake.echo", args: { message: "{}" } };
    const r = await execStream(sb, "return 1", { record, hooks: [GUARD, plug] });
    expectExit(r, 0);
    expect(recordedCalls(record).map((c) => c.tool)).toEqual([]);
    expect(onlyHookFrame(r.frames, "plug").failed).toContain("refused by hook guard: echo is not allowed");
    expect(onlyHookFrame(r.frames, "guard")).toMatchObject({ on: "call", phase: "before", by: ["plug"] });
    expect(callFrames(r.frames)).toEqual([expect.objectContaining({ server: "fake", tool: "echo", ok: false, by: ["plug"] })]);
    expect(checkFrameOrder(r.frames as unknown as ProductFrame[])).toEqual([]);
  });

  test("a module hook's calls pass the call guard too: its script is refused the call, and the call frame names the module hook", async () => {
    const record = recordPath(sb);
    const mod = { name: "mod", on: "script", phase: "before", module: CALLING_MODULE };
    const r = await execStream(sb, "return 1", { record, hooks: [GUARD, mod] });
    expectExit(r, 0);
    expect(recordedCalls(record).map((c) => c.tool)).toEqual([]);
    expect(onlyHookFrame(r.frames, "mod").advice?.[0]).toContain("refused by hook guard: echo is not allowed");
    expect(callFrames(r.frames)).toEqual([expect.objectContaining({ server: "fake", tool: "echo", ok: false, by: ["mod"] })]);
    expect(checkFrameOrder(r.frames as unknown as ProductFrame[])).toEqual([]);
  });

  test("a module hook's call that no guard refuses reaches the server and is answered", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, "return 1", { record, hooks: [{ name: "mod", on: "script", phase: "before", module: CALLING_MODULE }] });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "mod").advice?.[0]).toContain("module called echo");
    expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
  });

  test("a call a hook makes outside any run (mcpx call) publishes call.finished naming the hook", async () => {
    const saved = `${sb.dir}/observed-${crypto.randomUUID()}.json`;
    const hooks = [
      { name: "plug", on: "call", phase: "before", when: { tool: "add" }, plugin: "fake.echo", args: { message: "{}" } },
      { name: "watch", on: "call.finished", phase: "observe", when: { tool: "echo" }, run: say({}, saved) },
    ];
    const r = await mcpxWith(sb, ["call", "fake.add", '{"a":1,"b":2}'], { hooks });
    expect(r.code).toBe(0);
    const event = JSON.parse(readFileSync(saved, "utf8")).event;
    expect(event).toMatchObject({ kind: "call.finished", data: { server: "fake", tool: "echo", ok: true, by: "plug" } });
  });
});

describe.concurrent("a hook's calls do not re-enter it", () => {
  test("a call hook with no `when` that calls a tool is not run again for its own call", async () => {
    const record = recordPath(sb);
    const plug = { name: "every-call", on: "call", phase: "before", plugin: "fake.echo", args: { message: '{"advise":"seen"}' } };
    const r = await execStream(sb, tryCall("fake.add({ a: 1, b: 2 })"), { record, hooks: [plug] });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: { sum: 3 } });
    // one run of the hook for add; its own echo call skips it (without the rule: echo, echo, … without end)
    expect(hookFrames(r.frames, { name: "every-call" })).toHaveLength(1);
    expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
  });

  test(`a chain of hooks each calling the next server ends at MAX_HOOK_CALL_DEPTH (${MAX_HOOK_CALL_DEPTH}) with an error naming it`, async () => {
    // five servers and five hooks: the hook on server sN calls s(N+1).echo, so the chain is one line
    const names = ["s0", "s1", "s2", "s3", "s4", "s5"];
    const chainSb = hookSandbox(Object.fromEntries(names.map((n) => [n, fakeServer()])));
    const hooks = names
      .slice(0, 5)
      .map((n, i) => ({ name: `h${i}`, on: "call", phase: "before", when: { server: n }, plugin: `${names[i + 1]}.echo`, args: { message: "{}" } }));
    const r = await execStream(chainSb, tryCall('s0.echo({ message: "x" })'), { hooks });
    expectExit(r, 0);
    expect(printed(r.frames)).toMatchObject({ ok: true });
    // h0's call is 1 deep, …, h3's is 4 deep: h4's would be 5, past the bound, and is refused
    expect(onlyHookFrame(r.frames, "h4").failed).toContain(`past MAX_HOOK_CALL_DEPTH (${MAX_HOOK_CALL_DEPTH})`);
    for (const h of ["h0", "h1", "h2", "h3"]) expect(onlyHookFrame(r.frames, h).failed).toBeUndefined();
    expect(callFrames(r.frames).map((f) => f.server)).toEqual(["s4", "s3", "s2", "s1", "s0"]);
  });
});
