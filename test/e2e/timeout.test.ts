// exec.timeout (--timeout, MCPX_EXEC_TIMEOUT, the config key): a script that runs past it is ended
// with its whole process group (exit 124), nothing it started is left behind, and everything it
// wrote before the timeout is still reported. The variants use 2s rather than the headline's 1s only
// so that a loaded machine still starts the child before the timeout fires. Every child here carries a unique marker in its
// command line and environment, so processesWith() can prove it is gone.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedCalls, recordedStarts } from "../../fixtures/servers/record.ts";
import { fakeServer, processesWith, sandbox, type Result } from "./harness.ts";
import { expectExit, frameOrderProblems, leftoverProcesses, mcpx, parseFrames, productGuardProblems, uniqueMarker, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {});

/**
 * A script that prints a line, starts `sleep 300` (through sh, with the marker as $0 and in the
 * environment, so the shell and the sleep both carry it), prints the child's pid, and then waits
 * forever on a timer.
 */
function sleeper(marker: string): string {
  return [
    'console.log("[before timeout]");',
    'const { spawn } = await import("node:child_process");',
    `const child = spawn("sh", ["-c", "sleep 300; true", ${JSON.stringify(marker)}], { stdio: ` +
      `"ignore", env: { ...process.env, MCPX_E2E_MARKER: ${JSON.stringify(marker)} } });`,
    'console.log("[child " + child.pid + "]");',
    "setInterval(() => {}, 1 << 30);",
    "await new Promise(() => {});",
  ].join("\n");
}

/** the sleeper as a file script, so the marker is in no mcpx command line (only in what the script starts) */
let files = 0;
function sleeperFile(marker: string): string {
  return sb.write(`sleeper-${++files}.ts`, sleeper(marker));
}

/**
 * Runs mcpx while watching for the marker: proves the child really existed during the run (so "no
 * process afterwards" is not vacuous), then returns the result and what was left right after mcpx exited.
 */
async function runWatched(marker: string, args: string[], opts: Parameters<typeof mcpx>[2] = {}): Promise<{ r: Result; seen: boolean; left: number[] }> {
  let done = false;
  let seen = false;
  const run = mcpx(sb, args, opts).finally(() => (done = true));
  while (!done && !seen) {
    seen = processesWith(marker).length > 0;
    if (!seen) await Bun.sleep(50);
  }
  const r = await run;
  // mcpx waits for the group to end before it exits, so nothing may remain at this point
  return { r, seen, left: processesWith(marker) };
}

describe.concurrent("--timeout", () => {
  test("--timeout 1s ends a script that sleeps forever with exit 124, leaves no process behind, and still reports its output", async () => {
    const marker = uniqueMarker("timeout-text");
    const { r, seen, left } = await runWatched(marker, ["run", "--timeout", "1s", sleeperFile(marker)]);
    expect(seen).toBe(true);
    expectExit(r, 124);
    expect(left).toEqual([]);
    expect(r.stdout).toContain("[before timeout]");
    expect(r.stdout).toMatch(/\[child \d+\]/);
    expect(r.stderr.toLowerCase()).toContain("timeout");
  });

  test("with --json a timed-out run still reports what it wrote, and exitCode 124", async () => {
    const marker = uniqueMarker("timeout-json");
    const { r, seen, left } = await runWatched(marker, ["run", "--timeout", "2s", "--json", sleeperFile(marker)]);
    expect(seen).toBe(true);
    expectExit(r, 124);
    expect(left).toEqual([]);
    const env = JSON.parse(r.stdout);
    expect(env.ok).toBe(false);
    expect(env.exitCode).toBe(124);
    expect(env.stdout).toContain("[before timeout]");
    expect(env.error).not.toBeNull();
  });

  test("with --output stream a timed-out run streams its output, then one error frame, then end with exit code 124", async () => {
    const marker = uniqueMarker("timeout-stream");
    const { r, seen, left } = await runWatched(marker, ["run", "--timeout", "2s", "--output", "stream", sleeperFile(marker)]);
    expect(seen).toBe(true);
    expectExit(r, 124);
    expect(left).toEqual([]);
    const frames = parseFrames(r.stdout);
    const types = frames.map((f) => f.type);
    expect(types.filter((t) => t === "result" || t === "error")).toEqual(["error"]);
    expect(types.indexOf("stdout")).toBeLessThan(types.indexOf("error"));
    expect(
      frames
        .filter((f) => f.type === "stdout")
        .map((f) => f.data)
        .join(""),
    ).toContain("[before timeout]");
    expect(frames[frames.length - 1]).toMatchObject({ type: "end", exitCode: 124 });
    expect(frameOrderProblems(frames)).toEqual([]);
    expect(productGuardProblems(frames)).toEqual([]);
  });

  test("MCPX_EXEC_TIMEOUT ends the run the same way", async () => {
    const marker = uniqueMarker("timeout-env");
    const { r, seen, left } = await runWatched(marker, ["run", sleeperFile(marker)], { env: { MCPX_EXEC_TIMEOUT: "2s" } });
    expect(seen).toBe(true);
    expectExit(r, 124);
    expect(left).toEqual([]);
    expect(r.stdout).toContain("[before timeout]");
  });

  test("exec.timeout in a config file ends the run the same way", async () => {
    const marker = uniqueMarker("timeout-config");
    const config = writeConfig(sb, "timeout-config.json", { exec: { timeout: "2s" } });
    const { r, seen, left } = await runWatched(marker, ["run", "--config", config, sleeperFile(marker)]);
    expect(seen).toBe(true);
    expectExit(r, 124);
    expect(left).toEqual([]);
    expect(r.stdout).toContain("[before timeout]");
  });

  test("a timeout while a tool call hangs ends the run with 124 and leaves neither the script nor the server behind", async () => {
    const marker = uniqueMarker("timeout-hang");
    const record = join(sb.dir, `${marker}.jsonl`);
    const config = writeConfig(sb, "hang.json", {
      mcpServers: { fake: fakeServer({ FAKE_MCP_HANG_TOOL: "slow", FAKE_MCP_RECORD: record, MCPX_E2E_MARKER: marker }) },
    });
    // 3s, not 1s: under load a 1s timeout could fire while the server was still starting, and then no
    // call was hanging at all; the record below proves the call reached the server before the timeout
    const r = await mcpx(sb, ["exec", "--config", config, "--timeout", "3s", 'console.log("[calling]"); await fake.slow({ ms: 1 }); console.log("[never]")']);
    expectExit(r, 124);
    expect(r.stdout).toBe("[calling]\n");
    // the server really ran and really had the call when the timeout came, so "left behind" is not vacuous
    expect(recordedStarts(record)).toHaveLength(1);
    expect(recordedCalls(record, "slow")).toHaveLength(1);
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  test("a script that finishes within its timeout exits normally", async () => {
    const r = await mcpx(sb, ["exec", "--timeout", "30s", 'console.log("quick")']);
    expectExit(r, 0);
    expect(r.stdout).toBe("quick\n");
  });

  test("a --timeout that is not a duration is a usage error (exit 2) naming the flag", async () => {
    const r = await mcpx(sb, ["exec", "--timeout", "soonish", 'console.log("[ran]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("--timeout");
    expect(r.stdout).not.toContain("[ran]");
  });
});
