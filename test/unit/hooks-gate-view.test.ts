// A run's gate (gateForRun) and a served request's gate (gateWithAsk) are views on the process's
// gate, not copies: a plugin's hooks arrive when its server starts, possibly after the run or the
// request began, and must be in force for it. A spread copy (`{ ...gate, ask }`) would read the
// hooks once and freeze them: the "arrives later" tests below then see no plugin hook.

import { afterAll, describe, expect, test } from "bun:test";
import { EventBus } from "../../lib/events/bus.ts";
import type { Event } from "../../lib/events/event.ts";
import { buildGate, gateForRun, gateWithAsk } from "../../lib/hooks/build-gate.ts";
import type { Hook } from "../../lib/hooks/hook.ts";
import { parseHooks } from "../../lib/hooks/schema.ts";
import type { Gate } from "../../lib/hooks/types.ts";
import { Pool } from "../../lib/mcp/pool.ts";
import { openSession } from "../../lib/session/session.ts";
import { removeTempRoots, tempRoot } from "./temp-files.ts";

afterAll(removeTempRoots);

const hook = (name: string, on = "call"): Hook =>
  parseHooks([{ value: { name, on, phase: "before", run: ["true"] }, origin: `test ${name}`, baseDir: process.cwd() }], { PATH: process.env.PATH })[0]!;

/** a process gate whose hooks grow when a "plugin" arrives, as buildGate's getter does */
function processGate(): { gate: Gate; arrive(h: Hook): void } {
  const plugin: Hook[] = [];
  const fixed = [hook("configured")];
  const gate = {
    get hooks() {
      return [...fixed, ...plugin];
    },
    policy: {
      autonomy: "run",
      max: "run",
      retryBudget: 1,
      defaultTimeoutMs: 5000,
      mcpTimeoutMs: 1000,
      callTimeoutMs: 60_000,
      hookServers: { all: false, names: [] },
    },
  } as unknown as Gate;
  return { gate, arrive: (h) => plugin.push(h) };
}

describe("a gate for one run or one request reads the process's hooks live", () => {
  test("a plugin hook that arrives after a run's gate was made is in force for that run, before its own hooks", () => {
    const { gate, arrive } = processGate();
    const run = gateForRun(gate, [hook("per-run", "script")], {});
    arrive(hook("plugin"));
    expect(run.hooks.map((h) => h.name)).toEqual(["configured", "plugin", "per-run"]);
  });

  test("a plugin hook that arrives after a served request's gate was made is in force for that request", () => {
    const { gate, arrive } = processGate();
    const ask = async () => true;
    const served = gateWithAsk(gate, ask);
    arrive(hook("plugin"));
    expect(served.hooks.map((h) => h.name)).toEqual(["configured", "plugin"]);
    expect(served.ask).toBe(ask);
    expect(gate.ask).toBeUndefined();
  });

  test("a run's stricter settings land on its own policy, never on the process's", () => {
    const { gate } = processGate();
    const run = gateForRun(gate, [], { "hooks.retryBudget": 0 });
    expect(run.policy.retryBudget).toBe(0);
    expect(gate.policy.retryBudget).toBe(1);
  });
});

describe("the gate decides; the engine owns the pool and the bus", () => {
  test("the gate buildGate makes holds neither the pool nor the bus, and a failed hook reaches the bus through what the engine wired", () => {
    const root = tempRoot();
    const session = openSession({ cwd: root, env: { HOME: root, XDG_CONFIG_HOME: `${root}/xdg` }, flags: [] });
    const pool = new Pool({}, { log: () => {}, callTimeoutMs: 1000, startTimeoutMs: 1000, maxMessageBytes: 1 << 20, baseEnv: {} });
    const bus = new EventBus();
    const seen: Event[] = [];
    bus.on((e) => seen.push(e));
    const { gate, observers } = buildGate({ session, pool, bus, hooks: [] });
    expect(Object.keys(gate)).not.toContain("pool");
    expect(Object.keys(gate)).not.toContain("bus");
    gate.hookFailed({ hook: "h", point: "call", phase: "before", reason: "exited with code 1" }, { server: "fake", tool: "echo" });
    expect(seen.map((e) => [e.kind, e.server, (e.data as { hook: string }).hook])).toEqual([["hook.failed", "fake", "h"]]);
    observers.stop();
  });
});
