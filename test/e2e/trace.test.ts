// MCPX_TRACE=1 (docs/runtimes.md "Tracing start-up"): the stages of a run, in order, on stderr, with
// their times; without it, not a line of it. Times are printed, never judged: no test fails on a time.

import { afterAll, describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";
import { execEnvelope, startDaemon, stopDaemons } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
afterAll(stopDaemons);

// the first run in a cache builds the runtime bundle, so its runtime starts after the engine; every
// later run's runtime is spawned before the command loads, and the run takes it (cmd/early-runtime.ts),
// and its session comes from the note the first left (lib/session/session-note.ts)
const FIRST = ["main: exec", "command loaded", "config", "engine", "runtime spawned", "run handed over"];
const LATER = [
  "main: exec",
  "runtime spawned",
  "command loaded",
  "session from its note",
  "config",
  "engine",
  "runtime taken (started early)",
  "run handed over",
];
const RUN = ["child ready (first output)", "first frame", "child exited", "exit"];
// the runtime's exit and the reading of its fd 1 are separate events: on a loaded machine the exit
// can be seen before the bytes it wrote are read, so "child exited" is only checked to come after
// the handover and before the exit, once
const EXITED = "child exited";

/** the stages with "child exited" moved to where it was traced, if that is between the handover and the exit */
function withExitWhereSeen(expected: string[], seen: string[]): string[] {
  const at = seen.indexOf(EXITED);
  const from = seen.indexOf("run handed over");
  if (at <= from || at >= seen.indexOf("exit")) return expected;
  const rest = expected.filter((s) => s !== EXITED);
  return [...rest.slice(0, at), EXITED, ...rest.slice(at)];
}

function traced(stderr: string): Array<{ ms: number; cpu: number; stage: string }> {
  return [...stderr.matchAll(/^mcpx trace (\d+(?:\.\d+)?)ms cpu (\d+(?:\.\d+)?)ms (.+)$/gm)].map((m) => ({
    ms: Number(m[1]),
    cpu: Number(m[2]),
    stage: m[3]!,
  }));
}

describe("MCPX_TRACE", () => {
  test("MCPX_TRACE=1 prints every stage of an exec once, in order, with non-decreasing times, and stdout is the script's alone", async () => {
    for (const stages of [
      [...FIRST, ...RUN],
      [...LATER, ...RUN],
    ]) {
      const r = await mcpx(sb, ["exec", 'console.log("hi")'], { env: { MCPX_TRACE: "1" } });
      expectExit(r, 0);
      expect(r.stdout).toBe("hi\n");
      const lines = traced(r.stderr);
      const seen = lines.map((l) => l.stage);
      expect(seen).toEqual(withExitWhereSeen(stages, seen));
      for (let i = 1; i < lines.length; i++) {
        expect(lines[i]!.ms).toBeGreaterThanOrEqual(lines[i - 1]!.ms);
        expect(lines[i]!.cpu).toBeGreaterThanOrEqual(lines[i - 1]!.cpu);
      }
      expect(lines.at(-1)!.cpu).toBeGreaterThan(0);
    }
  });

  test("a one-shot call: the first lists its server's tools; the next starts its server before the command loads, and takes it", async () => {
    const own = sandbox();
    writeConfig(own, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    const first = ["main: call", "command loaded", "config", "engine"];
    const firstEnd = [
      "fake: spawned",
      // the first start of an entry with no era verdict probes it (docs/decisions/0020); the next does not
      "fake: era legacy",
      "fake: sdk loaded",
      "argument checker warm",
      "fake: initialized",
      "fake: tools listed",
      "fake.echo: tool found",
      "fake.echo: arguments checked",
      "call answered",
      "engine closed",
      "exit",
    ];
    const later = ["main: call", "server spawned early", "command loaded", "session from its note", "config", "engine"];
    const laterEnd = [
      "early server taken",
      "fake: spawned",
      "fake: sdk loaded",
      "fake.echo: arguments checked (catalogue cache)",
      "fake: initialized",
      "call answered",
      "engine closed",
      "exit",
    ];
    for (const [stages, end] of [
      [first, firstEnd],
      [later, laterEnd],
    ] as const) {
      const r = await mcpx(own, ["call", "fake.echo", '{"message":"hi"}'], { env: { MCPX_TRACE: "1" } });
      expectExit(r, 0);
      expect(r.stdout).toBe("hi\n");
      const seen = traced(r.stderr).map((l) => l.stage);
      expect(seen.slice(0, stages.length)).toEqual([...stages]);
      // what follows overlaps the server's start, in an order that may vary; every stage is there once,
      // and the early server is taken as the server is started
      expect([...seen].sort()).toEqual([...stages, ...end].sort());
      if (seen.includes("early server taken")) expect(seen.indexOf("fake: spawned")).toBe(seen.indexOf("early server taken") + 1);
      expect(seen.slice(-3)).toEqual(["call answered", "engine closed", "exit"]);
    }
  });

  test("a session comes from its note until a file it was resolved from changes, or one appears", async () => {
    const own = sandbox();
    writeConfig(own, ".mcpx.json", { script: { before: ["console.log('one')"] } });
    const run = async () => {
      const r = await mcpx(own, ["exec", ""], { env: { MCPX_TRACE: "1" } });
      expectExit(r, 0);
      return { out: r.stdout, noted: traced(r.stderr).some((l) => l.stage === "session from its note") };
    };
    expect(await run()).toEqual({ out: "one\n", noted: false });
    expect(await run()).toEqual({ out: "one\n", noted: true });
    // the same size, so only what the file holds tells
    writeConfig(own, ".mcpx.json", { script: { before: ["console.log('two')"] } });
    expect(await run()).toEqual({ out: "two\n", noted: false });
    expect(await run()).toEqual({ out: "two\n", noted: true });
    writeConfig(own, ".mcpx/config.json", { script: { suffix: ["console.log('three')"] } });
    expect(await run()).toEqual({ out: "two\nthree\n", noted: false });
    expect(await run()).toEqual({ out: "two\nthree\n", noted: true });
  });

  test("a sandboxed run on the embedded engine: no runtime process, its engine's two stages after the engine, CPU by each", async () => {
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "return 6 * 7"], { env: { MCPX_TRACE: "1" } });
    expectExit(r, 0);
    expect(r.stdout).toBe("42\n");
    const lines = traced(r.stderr);
    const seen = lines.map((l) => l.stage);
    expect(seen).not.toContain("runtime spawned");
    expect(seen).not.toContain("child exited");
    const at = (stage: string) => seen.indexOf(stage);
    expect(at("engine")).toBeGreaterThan(at("config"));
    expect(at("quickjs instance")).toBe(at("engine") + 1);
    expect(at("quickjs launcher evaluated")).toBe(at("quickjs instance") + 1);
    expect(seen.at(-1)).toBe("exit");
    // instantiating and evaluating in a wasm engine is work of this process: its CPU grows across both
    const cpu = (stage: string) => lines[at(stage)]!.cpu;
    expect(cpu("quickjs launcher evaluated")).toBeGreaterThan(cpu("engine"));
  });

  test("a daemon replaces the runtime a run took only after that run's runtime has exited, so the start is not on the run's way out", async () => {
    const own = sandbox();
    const d = await startDaemon(own, ["--daemon-address", `${own.dir}/d.sock`], { env: { MCPX_TRACE: "1" } });
    for (let i = 1; i <= 3; i++) expect((await execEnvelope(d, { source: `return ${i}` })).result).toBe(i);
    // the third run's replacement is started after its answer: wait for its line, not for a time
    const spawnedLines = () => traced(d.stderr()).filter((l) => l.stage === "runtime spawned").length;
    for (const deadline = Date.now() + 20_000; spawnedLines() < 4 && Date.now() < deadline; ) await Bun.sleep(20);
    const seen: string[] = traced(d.stderr())
      .map((l) => l.stage)
      .filter((s) => s === "run handed over" || s === "child exited" || s === "runtime spawned");
    // one kept before the first run, then for each run: handed over, its runtime exits, the next is started
    expect(seen).toEqual(["runtime spawned", ...Array.from({ length: 3 }, () => ["run handed over", "child exited", "runtime spawned"]).flat()]);
  });

  test("without MCPX_TRACE nothing of the trace is printed", async () => {
    const r = await mcpx(sb, ["exec", 'console.log("hi")']);
    expectExit(r, 0);
    expect(r.stderr).not.toContain("mcpx trace");
  });
});
