// The payload ladder through a daemon's POST /v1/exec: 300 KB, 2 MB and 8 MB arguments and
// results both ways between a script and a tool, and the script's stdout and returned value back to
// the HTTP caller, as one JSON envelope and as NDJSON frames. Content is compared by hash.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Daemon, execEnvelope, execFrames, startDaemon, stopDaemons } from "./daemon-support.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { leftoverProcesses, writeConfig } from "./support.ts";
import { RUNGS, RUN_TIMEOUT, TEST_TIMEOUT_MS, argumentScript, digestOf, expectPayload, outputScript, resultScript } from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

let d: Daemon;
beforeAll(async () => {
  // every rung's four runs go at once, past the default daemon.maxRuns (8): that bound is not what this file tests (daemon-limits.test.ts does)
  d = await startDaemon(sb, [], { env: { MCPX_DAEMON_MAX_RUNS: "32" } });
});
afterAll(stopDaemons);

describe.concurrent("the payload ladder through POST /v1/exec", () => {
  RUNGS.forEach(({ label, size }, i) => {
    const seed = 300 + i * 10;

    test(
      `a ${label} argument built by the script reaches the tool intact`,
      async () => {
        const env = await execEnvelope(d, { source: argumentScript(size, seed), timeout: RUN_TIMEOUT });
        expect(env.error).toBeNull();
        expect(env.stdout).toBe(`${digestOf(size, seed)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} tool result reaches the script intact`,
      async () => {
        const env = await execEnvelope(d, { source: resultScript(size, seed + 1), timeout: RUN_TIMEOUT });
        expect(env.error).toBeNull();
        expect(env.stdout).toBe(`${digestOf(size, seed + 1)}\n`);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} stdout and a ${label} returned value reach the caller intact in the JSON envelope`,
      async () => {
        const env = await execEnvelope(d, { source: outputScript(size, seed + 2), timeout: RUN_TIMEOUT });
        expect(env.error).toBeNull();
        expect(env.ok).toBe(true);
        expectPayload(env.stdout, size, seed + 2, "\n");
        expectPayload(env.result, size, seed + 3);
      },
      TEST_TIMEOUT_MS,
    );

    test(
      `a ${label} stdout and a ${label} returned value reach the caller intact as NDJSON frames`,
      async () => {
        const frames = await execFrames(d, { source: outputScript(size, seed + 4), timeout: RUN_TIMEOUT });
        expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
        expectPayload(
          frames
            .filter((f) => f.type === "stdout")
            .map((f) => f.data as string)
            .join(""),
          size,
          seed + 4,
          "\n",
        );
        expectPayload(frames.find((f) => f.type === "result")?.value, size, seed + 5);
      },
      TEST_TIMEOUT_MS,
    );
  });
});

test("no server process started by this file's runs is left behind once the daemon stopped", async () => {
  await stopDaemons();
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
