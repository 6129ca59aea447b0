// The payload ladder's 2 MB rung with `--runtime deno`: the launcher's socket writes and
// reads on Deno carry a 2 MB argument to a tool and a 2 MB result back, and the script's 2 MB stdout
// and returned value reach the caller. Content is compared by hash.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { KILL_AFTER_MS, MiB, RUN_TIMEOUT, TEST_TIMEOUT_MS, argumentScript, digestOf, expectPayload, outputScript, resultScript } from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const SIZE = 2 * MiB;
const deno = (source: string, flags: string[] = []) =>
  mcpx(sb, ["exec", "--runtime", "deno", "--timeout", RUN_TIMEOUT, ...flags, source], { killAfterMs: KILL_AFTER_MS });

describe.concurrent("the 2 MB rung on Deno", () => {
  test(
    "a 2 MB argument built by a script on Deno reaches the tool intact",
    async () => {
      const r = await deno(argumentScript(SIZE, 500));
      expectExit(r, 0);
      expect(r.stdout).toBe(`${digestOf(SIZE, 500)}\n`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a 2 MB tool result reaches a script on Deno intact",
    async () => {
      const r = await deno(resultScript(SIZE, 501));
      expectExit(r, 0);
      expect(r.stdout).toBe(`${digestOf(SIZE, 501)}\n`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "a 2 MB stdout and a 2 MB returned value of a script on Deno reach the caller intact",
    async () => {
      const r = await deno(outputScript(SIZE, 502), ["--json"]);
      expectExit(r, 0);
      const envelope = JSON.parse(r.stdout) as { stdout: string; result: unknown };
      expectPayload(envelope.stdout, SIZE, 502, "\n");
      expectPayload(envelope.result, SIZE, 503);
    },
    TEST_TIMEOUT_MS,
  );
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
