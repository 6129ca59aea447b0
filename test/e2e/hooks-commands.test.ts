// `mcpx hooks list | explain NS.tool | test NAME --event FILE`, through the binary, against a config
// file with hooks (so each hook's origin is a file path and an index).

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { expectExit, hookSandbox, mcpxWith, say } from "./hooks-support.ts";
import { fakeServer } from "./harness.ts";
import { writeConfig } from "./support.ts";

const sb = hookSandbox();
const CONFIG = writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  hooks: [
    { name: "no-delete", on: "call", phase: "before", when: { tool: "delete_*" }, run: say({ refuse: "deleting needs a ticket" }), effect: "refuse" },
    { name: "echo-note", on: "call", phase: "onSuccess", when: { tool: "echo" }, run: say({ advise: "echoed" }) },
    { on: "call", phase: "suffix", run: say({ advise: "after every call" }) },
    { name: "watch", on: "call", phase: "observe", run: say({}) },
    { name: "start-note", on: "script", phase: "before", run: say({ advise: "starting" }) },
    // written with the identifier scripts use; the server lists the tool as get-sum
    { name: "sum-guard", on: "call", phase: "before", when: { tool: "get_sum" }, run: say({ refuse: "no sums today" }), effect: "refuse" },
    // written with the MCP name
    { name: "sum-note", on: "call", phase: "onSuccess", when: { tool: "get-sum" }, run: say({ advise: "summed" }) },
  ],
});
const EVENT = sb.write("event.json", JSON.stringify({ runId: "r-1", call: { server: "fake", tool: "delete_item", arguments: { id: "1" } } }));

const hooks = (argv: string[], env: Record<string, string> = {}) => mcpxWith(sb, ["hooks", ...argv], { env });

describe.concurrent("mcpx hooks list", () => {
  test("lists every hook in force with its point, phase, effect and origin (the config file and index)", async () => {
    const r = await hooks(["list"]);
    expectExit(r, 0);
    const lines = r.stdout.trim().split("\n");
    const line = (name: string) => lines.find((l) => l.startsWith(name)) ?? `no line for ${name} in:\n${r.stdout}`;
    expect(line("no-delete")).toContain("call.before");
    expect(line("no-delete")).toContain("refuse");
    expect(line("no-delete")).toContain(`${CONFIG} hooks[0]`);
    expect(line("echo-note")).toContain(`${CONFIG} hooks[1]`);
    // an unnamed hook is named on.phase#index
    expect(line("call.suffix#2")).toContain(`${CONFIG} hooks[2]`);
    expect(line("watch")).toContain("observe");
    expect(line("start-note")).toContain("script.before");
  });

  test("--json gives one row per hook with its origin", async () => {
    const r = await hooks(["list", "--json"]);
    expectExit(r, 0);
    const rows = (JSON.parse(r.stdout) as { hooks: Array<Record<string, string>> }).hooks;
    expect(rows.map((h) => h.name).sort()).toEqual(["call.suffix#2", "echo-note", "no-delete", "start-note", "sum-guard", "sum-note", "watch"]);
    expect(rows.find((h) => h.name === "no-delete")).toMatchObject({
      on: "call",
      phase: "before",
      action: "run",
      effect: "refuse",
      origin: `${CONFIG} hooks[0]`,
    });
  });

  test("a hook layered on from MCPX_HOOKS (null splices the config's in) is listed with the variable as its origin", async () => {
    const r = await hooks(["list", "--json"], { MCPX_HOOKS: JSON.stringify([null, { name: "from-env", on: "call", phase: "before", run: say({}) }]) });
    expectExit(r, 0);
    const rows = (JSON.parse(r.stdout) as { hooks: Array<Record<string, string>> }).hooks;
    expect(rows).toHaveLength(8);
    expect(rows.find((h) => h.name === "no-delete")?.origin).toBe(`${CONFIG} hooks[0]`);
    expect(rows.find((h) => h.name === "from-env")?.origin).toContain("MCPX_HOOKS");
  });
});

describe.concurrent("mcpx hooks explain", () => {
  test("explain fake.delete_item shows the hooks that would fire for that call, with their effective effect", async () => {
    const r = await hooks(["explain", "fake.delete_item"]);
    expectExit(r, 0);
    expect(r.stdout).toContain("no-delete");
    expect(r.stdout).toContain("call.before");
    expect(r.stdout).toContain("refuse");
    expect(r.stdout).toContain("call.suffix#2");
    // filtered to echo, or not on the call point
    expect(r.stdout).not.toContain("echo-note");
    expect(r.stdout).not.toContain("start-note");
  });

  test("with MCPX_HOOKS_AUTONOMY=advise it shows the refuse clamped to advise, naming the clamp", async () => {
    const [text, json] = await Promise.all([
      hooks(["explain", "fake.delete_item"], { MCPX_HOOKS_AUTONOMY: "advise" }),
      hooks(["explain", "fake.delete_item", "--json"], { MCPX_HOOKS_AUTONOMY: "advise" }),
    ]);
    expectExit(text, 0);
    const line = text.stdout.split("\n").find((l) => l.includes("no-delete")) ?? text.stdout;
    expect(line).toContain("refuse → advise");
    expect(line).toContain("hooks.autonomy");
    expectExit(json, 0);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.hook === "no-delete")).toMatchObject({
      phase: "before",
      declared: "refuse",
      effective: "advise",
      clampedBy: ["hooks.autonomy"],
      origin: `${CONFIG} hooks[0]`,
    });
  });

  test("with MCP_HOOK_SERVERS=fake it also shows the server's _PreToolUse hook tool at call.before", async () => {
    const r = await hooks(["explain", "fake.echo", "--json"], { MCP_HOOK_SERVERS: "fake" });
    expectExit(r, 0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.find((row) => row.hook === "fake._PreToolUse")).toMatchObject({ phase: "before", action: "plugin", origin: "MCP_HOOK_SERVERS" });
    expect(rows.some((row) => row.hook === "echo-note")).toBe(true);
  });
});

describe.concurrent("when.tool takes either spelling, and explain says what the gate does", () => {
  test("a guard on the identifier get_sum refuses the call to the tool the server lists as get-sum", async () => {
    const r = await mcpxWith(sb, [
      "exec",
      "--timeout",
      "30s",
      'try { await fake.get_sum({ values: [1] }); console.log("went through") } catch (e) { console.log(e.message) }',
    ]);
    expectExit(r, 0);
    expect(r.stdout).toContain("refused by hook sum-guard: no sums today");
  });

  for (const spelling of ["fake.get_sum", "fake.get-sum"]) {
    test(`explain ${spelling} lists both guards, whichever spelling they and the target use`, async () => {
      const r = await hooks(["explain", spelling, "--json"]);
      expectExit(r, 0);
      const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
      expect(rows.find((row) => row.hook === "sum-guard")).toMatchObject({ phase: "before", effective: "refuse" });
      expect(rows.find((row) => row.hook === "sum-note")).toMatchObject({ phase: "onSuccess" });
    });
  }

  test("explain of an unknown server exits 2 naming the configured servers", async () => {
    const r = await hooks(["explain", "nosuch.tool"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('unknown server "nosuch"');
    expect(r.stderr).toContain("configured servers are fake");
  });

  test("explain of an unknown tool exits 2 and says how to list the tools", async () => {
    const r = await hooks(["explain", "fake.nosuch"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('unknown tool "nosuch" on server "fake"');
    expect(r.stderr).toContain("mcpx ls fake");
  });
});

describe.concurrent("mcpx hooks test", () => {
  test("hooks test no-delete --event FILE runs that hook against the payload and prints its decision as JSON", async () => {
    const r = await hooks(["test", "no-delete", "--event", EVENT]);
    expectExit(r, 0);
    const report = JSON.parse(r.stdout);
    expect(report.hook).toBe("no-delete");
    expect(report.decision.refused).toEqual({ hook: "no-delete", reason: "deleting needs a ticket" });
    expect(report.frame).toMatchObject({ on: "call", phase: "before", name: "no-delete", effect: "refuse" });
  });

  test("hooks test of an advising hook prints its advice in the decision", async () => {
    const r = await hooks(["test", "echo-note", "--event", join(sb.dir, "event.json")]);
    expectExit(r, 0);
    const report = JSON.parse(r.stdout);
    expect(report.decision.advice).toEqual(["echoed"]);
    expect(report.decision.refused).toBeUndefined();
  });

  test("hooks test of a hook that does not exist is a usage error naming the hooks in force", async () => {
    const r = await hooks(["test", "no-such-hook", "--event", EVENT]);
    expectExit(r, 2);
    expect(r.stderr).toContain("no-such-hook");
    expect(r.stderr).toContain("no-delete");
  });
});
