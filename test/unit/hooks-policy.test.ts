// The gate's policy table and a run's own limits over it: the stricter value always wins, so a
// caller (--remote, /v1/exec, mcpx_exec) can tighten what runs for it and never loosen the daemon's.

import { describe, expect, test } from "bun:test";
import { RunSettingsSchema } from "../../lib/exec/options-schema.ts";
import { RUN_SETTINGS, runSettingValues } from "../../lib/exec/options.ts";
import { POLICY_SETTINGS, stricterPolicy, type GatePolicy } from "../../lib/hooks/policy.ts";
import * as v from "valibot";

const base: GatePolicy = {
  autonomy: "apply",
  max: "run",
  retryBudget: 2,
  defaultTimeoutMs: 30_000,
  mcpTimeoutMs: 2500,
  callTimeoutMs: 60_000,
  hookServers: { all: false, names: [] },
};

describe("the settings a run may carry", () => {
  test("every setting the registry lets a run carry lands on a policy field (none is carried and dropped)", () => {
    expect(RUN_SETTINGS.map((d) => d.path).sort()).toEqual(Object.keys(POLICY_SETTINGS).sort());
  });

  test("values are written as in a config file and read as the policy holds them", () => {
    const parsed = v.parse(RunSettingsSchema, { "hooks.autonomy": "advise", "mcp.callTimeout": "1.5s", "hooks.retryBudget": 0 });
    expect(runSettingValues(parsed)).toEqual({ "hooks.autonomy": "advise", "mcp.callTimeout": 1500, "hooks.retryBudget": 0 });
  });

  test("an unknown key or a bad value is refused naming it", () => {
    expect(() => v.parse(RunSettingsSchema, { "model.url": "http://x" })).toThrow();
    expect(() => v.parse(RunSettingsSchema, { "hooks.autonomy": "loud" })).toThrow(/hooks.autonomy.*one of off, advise/);
    expect(() => v.parse(RunSettingsSchema, { "mcp.callTimeout": "30" })).toThrow(/mcp.callTimeout.*duration/);
  });
});

describe("stricterPolicy", () => {
  test("a lower autonomy or ceiling from the run applies", () => {
    expect(stricterPolicy(base, { "hooks.autonomy": "advise", "autonomy.max": "refuse" })).toMatchObject({ autonomy: "advise", max: "refuse" });
  });

  test("a higher autonomy from the run does not raise the daemon's", () => {
    expect(stricterPolicy(base, { "hooks.autonomy": "run" }).autonomy).toBe("apply");
  });

  test("fewer retries and shorter timeouts apply; more and longer do not", () => {
    expect(stricterPolicy(base, { "hooks.retryBudget": 0, "mcp.callTimeout": 500 })).toMatchObject({ retryBudget: 0, callTimeoutMs: 500 });
    expect(stricterPolicy(base, { "hooks.retryBudget": 9, "mcp.callTimeout": 120_000 })).toMatchObject({ retryBudget: 2, callTimeoutMs: 60_000 });
  });

  test("a timeout of 0 is no limit: the loosest, on either side", () => {
    expect(stricterPolicy(base, { "hooks.timeout": 0 }).defaultTimeoutMs).toBe(30_000);
    expect(stricterPolicy({ ...base, callTimeoutMs: 0 }, { "mcp.callTimeout": 500 }).callTimeoutMs).toBe(500);
  });

  test("the process's policy object is not changed", () => {
    stricterPolicy(base, { "hooks.autonomy": "off" });
    expect(base.autonomy).toBe("apply");
  });
});
