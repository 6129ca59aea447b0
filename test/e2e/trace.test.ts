// MCPX_TRACE=1 (docs/runtimes.md "Tracing start-up"): the stages of a run, in order, on stderr, with
// their times; without it, not a line of it. Times are printed, never judged: no test fails on a time.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

// the first run in a cache builds the runtime bundle, so its runtime starts after the engine; every
// later run's runtime is spawned before the command loads, and the run takes it (cmd/early-runtime.ts)
const FIRST = ["main: exec", "command loaded", "config", "engine", "runtime spawned", "run handed over"];
const LATER = ["main: exec", "runtime spawned", "command loaded", "config", "engine", "runtime taken (started early)", "run handed over"];
const RUN = ["child ready (first output)", "first frame", "child exited", "exit"];

function traced(stderr: string): Array<{ ms: number; stage: string }> {
  return [...stderr.matchAll(/^mcpx trace (\d+(?:\.\d+)?)ms (.+)$/gm)].map((m) => ({ ms: Number(m[1]), stage: m[2]! }));
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
      expect(lines.map((l) => l.stage)).toEqual(stages);
      for (let i = 1; i < lines.length; i++) expect(lines[i]!.ms).toBeGreaterThanOrEqual(lines[i - 1]!.ms);
    }
  });

  test("without MCPX_TRACE nothing of the trace is printed", async () => {
    const r = await mcpx(sb, ["exec", 'console.log("hi")']);
    expectExit(r, 0);
    expect(r.stderr).not.toContain("mcpx trace");
  });
});
