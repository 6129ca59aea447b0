// The points, through the binary. The guard: every point in every phase of lib/hooks/points.ts gets
// an advising hook, two runs exercise everything (a succeeding script that makes a good call, a
// failing call and a call to a server that cannot start; and a failing script), and each point and
// phase must show a hook frame. A point added to the table without a way to fire it fails here.
// Then the server.start point refusing a server, and the call point's gate on `mcpx call`.

import { beforeAll, describe, expect, test } from "bun:test";
import { phasesOf, POINT_NAMES } from "../../lib/hooks/points.ts";
import {
  execStream,
  execText,
  expectExit,
  hookFrames,
  hookSandbox,
  mcpxWith,
  printed,
  recordedCalls,
  recordedStarts,
  recordPath,
  say,
  tryCall,
  type StreamRun,
} from "./hooks-support.ts";
import type { Frame } from "./support.ts";
import { fakeServer } from "./harness.ts";

// `broken` exits at once, so its start fails and server.start.onError fires
// `feat` offers resources and prompts, for the resource.read and prompt.get points
const sb = hookSandbox({ broken: { command: "sh", args: ["-c", "exit 3"] }, feat: fakeServer({ FAKE_MCP_FEATURES: "1" }) });

const advice = (point: string, phase: string) => `fired at ${point}.${phase}`;

/**
 * The points a run fires. agent.stop and agent.compact fire through mcpx serve's _Stop/_PostCompact
 * tools, and their guard is in serve-agent-hooks.test.ts; a new point must be fired in one of them.
 */
const AGENT_POINTS = ["agent.stop", "agent.compact"];
const RUN_POINTS = POINT_NAMES.filter((p) => !AGENT_POINTS.includes(p));

/** one advising hook at every point and phase the table declares */
const EVERY_PHASE = RUN_POINTS.flatMap((point) =>
  phasesOf(point).map((phase) => ({ name: `guard-${point}-${phase}`, on: point, phase, run: say({ advise: advice(point, phase) }) })),
);

const BODY = [
  tryCall('fake.echo({ message: "hi" })'),
  tryCall('fake.fail({ message: "no" })'),
  tryCall('broken.echo({ message: "hi" })'),
  tryCall('resources.read("feat", "fake://note")'),
  tryCall('resources.read("feat", "fake://no-such-resource")'),
  tryCall('prompts.get("feat", "greet", { name: "Ada" })'),
  tryCall('prompts.get("feat", "no-such-prompt")'),
].join("\n");

describe("every point in every phase fires through the binary", () => {
  let runs: StreamRun[] = [];
  let frames: Frame[] = [];
  beforeAll(async () => {
    runs = await Promise.all([
      execStream(sb, `${BODY}\nexport default () => "done"`, { hooks: EVERY_PHASE }),
      execStream(sb, `${BODY}\nthrow new Error("the script fails")`, { hooks: EVERY_PHASE }),
    ]);
    frames = runs.flatMap((r) => r.frames);
  });

  test("the two guard runs end as expected (exit 0, then exit 1)", () => {
    expectExit(runs[0]!, 0);
    expectExit(runs[1]!, 1);
  });

  for (const point of RUN_POINTS) {
    for (const phase of phasesOf(point)) {
      test(`a hook on ${point}.${phase} runs and its advice is in a hook frame with that point and phase`, () => {
        const found = hookFrames(frames, { on: point, phase });
        expect(found.length).toBeGreaterThan(0);
        expect(found.every((f) => f.name === `guard-${point}-${phase}` && f.advice?.[0] === advice(point, phase))).toBe(true);
      });
    }
  }
});

describe.concurrent("server.start", () => {
  test("a refusing server.start.before hook keeps the server from starting: calls to it fail naming the hook, and it records no start", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall('fake.echo({ message: "hi" })'), {
      record,
      hooks: [
        {
          name: "no-fake-server",
          on: "server.start",
          phase: "before",
          when: { server: "fake" },
          run: say({ refuse: "fake is quarantined" }),
          effect: "refuse",
        },
      ],
    });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught.ok).toBe(false);
    expect(String(caught.message)).toContain("no-fake-server");
    expect(String(caught.message)).toContain("fake is quarantined");
    expect(recordedStarts(record)).toEqual([]);
    expect(recordedCalls(record)).toEqual([]);
    expect(hookFrames(r.frames, { name: "no-fake-server" })[0]).toMatchObject({ on: "server.start", phase: "before", effect: "refuse" });
  });

  test("a refusing server.start.onSuccess hook stops the started server again: the call fails naming the hook and never reaches it", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall('fake.echo({ message: "hi" })'), {
      record,
      hooks: [{ name: "stop-fake", on: "server.start", phase: "onSuccess", run: say({ refuse: "too many tools" }), effect: "refuse" }],
    });
    expectExit(r, 0);
    const caught = printed(r.frames);
    expect(caught.ok).toBe(false);
    expect(String(caught.message)).toContain("stop-fake");
    expect(recordedCalls(record, "echo")).toEqual([]);
  });

  test("a server that cannot start reaches the script as a catchable error, without an internal stack dump on stderr", async () => {
    const r = await execText(sb, tryCall('broken.echo({ message: "hi" })'), {
      hooks: [{ name: "start-failed", on: "server.start", phase: "onError", run: say({ advise: "broken did not start" }) }],
    });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
    expect(r.stderr).toContain("broken did not start");
    // the error is the script's to handle: no unhandled-rejection dump of mcpx's bundled source
    expect(r.stderr.split("\n").filter((l) => /\$bunfs|UpstreamError/.test(l))).toEqual([]);
  });
});

describe.concurrent("the call point gates mcpx call too", () => {
  const noDelete = {
    name: "no-delete",
    on: "call",
    phase: "before",
    when: { tool: "delete_*" },
    run: say({ refuse: "deleting is not allowed" }),
    effect: "refuse",
  };

  test("mcpx call fake.delete_item is refused by the same call.before hook: exit 1, the hook and reason on stderr, and the server never sees it", async () => {
    const record = recordPath(sb);
    const r = await mcpxWith(sb, ["call", "fake.delete_item", '{"id":"1"}'], { record, hooks: [noDelete] });
    expectExit(r, 1);
    expect(r.stderr).toContain("no-delete");
    expect(r.stderr).toContain("deleting is not allowed");
    expect(r.stdout).not.toContain("deleted");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("mcpx call of a tool the hook does not match goes through", async () => {
    const record = recordPath(sb);
    const r = await mcpxWith(sb, ["call", "fake.echo", '{"message":"allowed"}'], { record, hooks: [noDelete] });
    expectExit(r, 0);
    expect(r.stdout).toBe("allowed\n");
    expect(recordedCalls(record, "echo")).toHaveLength(1);
  });

  test("mcpx call shows the advice and the failures of the server.start hooks its call set off on stderr", async () => {
    const r = await mcpxWith(sb, ["call", "fake.echo", '{"message":"hi"}'], {
      hooks: [
        { name: "start-advice", on: "server.start", phase: "before", run: say({ advise: "the fake server is starting" }) },
        { name: "start-broken", on: "server.start", phase: "onSuccess", run: ["sh", "-c", "cat > /dev/null; exit 1"] },
      ],
    });
    expectExit(r, 0);
    expect(r.stdout).toBe("hi\n");
    expect(r.stderr).toContain("the fake server is starting");
    expect(r.stderr).toContain("start-broken");
  });

  test("mcpx call applies a call.before rewrite and shows advice on stderr", async () => {
    const record = recordPath(sb);
    const r = await mcpxWith(sb, ["call", "fake.echo", '{"message":"original"}'], {
      record,
      hooks: [{ name: "rewrite-call", on: "call", phase: "before", run: say({ apply: { message: "rewritten" }, advise: "rewrote it" }), effect: "apply" }],
    });
    expectExit(r, 0);
    expect(r.stdout).toBe("rewritten\n");
    expect(r.stderr).toContain("rewrote it");
    expect(recordedCalls(record, "echo").map((c) => c.args)).toEqual([{ message: "rewritten" }]);
  });
});
