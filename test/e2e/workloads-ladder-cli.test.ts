// The payload ladder through the local CLI: arguments and results of 300 KB, 2 MB and 8 MB
// both ways — a script's argument to a tool, a tool's result to the script, the script's stdout and
// returned value to whoever ran `mcpx exec`/`mcpx run` — and through `mcpx call` (arguments on stdin:
// one argv string cannot exceed 128 KiB on Linux). Content is compared by hash, not only by length.
// Before the channel-write fix every rung of the script tests hung until --timeout (exit 124): the
// per-run channel dropped what a socket write did not take.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import {
  KILL_AFTER_MS,
  RUNGS,
  RUN_TIMEOUT,
  TEST_TIMEOUT_MS,
  argumentScript,
  digestOf,
  expectPayload,
  outputScript,
  resultScript,
} from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const exec = (source: string, flags: string[] = []) => mcpx(sb, ["exec", "--timeout", RUN_TIMEOUT, ...flags, source], { killAfterMs: KILL_AFTER_MS });

describe.concurrent("the payload ladder through a script", () => {
  RUNGS.forEach(({ label, size }, i) => {
    const seed = 100 + i * 10;

    test(
      `a ${label} argument built by a script reaches the tool intact`,
      async () => {
        const r = await exec(argumentScript(size, seed));
        expectExit(r, 0);
        expect(r.stdout).toBe(`${digestOf(size, seed)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} tool result reaches the script intact`,
      async () => {
        const r = await exec(resultScript(size, seed + 1));
        expectExit(r, 0);
        expect(r.stdout).toBe(`${digestOf(size, seed + 1)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} stdout of mcpx run reaches the caller intact`,
      async () => {
        const file = sb.write(`out-${size}.ts`, outputScript(size, seed + 2, false));
        const r = await mcpx(sb, ["run", "--timeout", RUN_TIMEOUT, file], { killAfterMs: KILL_AFTER_MS });
        expectExit(r, 0);
        expectPayload(r.stdout, size, seed + 2, "\n");
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} stdout and a ${label} returned value reach the caller of mcpx exec --json intact`,
      async () => {
        const r = await exec(outputScript(size, seed + 4), ["--json"]);
        expectExit(r, 0);
        const envelope = JSON.parse(r.stdout) as { ok: boolean; stdout: string; result: unknown };
        expect(envelope.ok).toBe(true);
        expectPayload(envelope.stdout, size, seed + 4, "\n");
        expectPayload(envelope.result, size, seed + 5);
      },
      TEST_TIMEOUT_MS,
    );
  });
});

describe.concurrent("the payload ladder through mcpx call", () => {
  RUNGS.forEach(({ label, size }, i) => {
    const seed = 200 + i * 10;

    test(
      `mcpx call sends a ${label} argument read from stdin and the tool receives it intact`,
      async () => {
        const { payload } = await import("../../fixtures/servers/payload.ts");
        const r = await mcpx(sb, ["call", "fake.sha256", "-"], { stdin: JSON.stringify({ data: payload(size, seed) }), killAfterMs: KILL_AFTER_MS });
        expectExit(r, 0);
        expect(r.stdout).toBe(`${digestOf(size, seed)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `mcpx call prints a ${label} result intact`,
      async () => {
        const r = await mcpx(sb, ["call", "fake.bytes", JSON.stringify({ size, seed: seed + 1 })], { killAfterMs: KILL_AFTER_MS });
        expectExit(r, 0);
        expectPayload(r.stdout, size, seed + 1, "\n");
      },
      TEST_TIMEOUT_MS,
    );
  });

  test("mcpx call - refuses arguments on stdin that are not a JSON object, and says where they came from", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", "-"], { stdin: "[1, 2]", killAfterMs: KILL_AFTER_MS });
    expectExit(r, 2);
    expect(r.stderr).toContain("the arguments on stdin must be a JSON object");
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
