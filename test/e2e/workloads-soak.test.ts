// The soak: 10,000 sequential and then 1,000 concurrent fake.echo calls in one run
// (test/bench/soak-script.ts, the same script `make bench` times). Only correctness is asserted: every
// call answered with its own message, and the host's envelope lists 11,000 ok calls. Timings and the
// host's peak RSS are `make bench`'s job (row 8), never a test's.

import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "bun:test";
import { ROOT, fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { KILL_AFTER_MS, RUN_TIMEOUT, TEST_TIMEOUT_MS } from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
// run from the sandbox: `mcpx run` writes mcpx-globals.d.ts beside the script
const SCRIPT = join(sb.dir, "soak-script.ts");
copyFileSync(join(ROOT, "test/bench/soak-script.ts"), SCRIPT);

test(
  "10,000 sequential and 1,000 concurrent calls in one run each get their own answer, and the host counts 11,000 ok calls",
  async () => {
    const r = await mcpx(sb, ["run", "--json", "--timeout", RUN_TIMEOUT, SCRIPT, "10000", "1000"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const envelope = JSON.parse(r.stdout) as { ok: boolean; stdout: string; calls: Array<{ server: string; tool: string; ok: boolean }> };
    expect(envelope.ok).toBe(true);
    expect(JSON.parse(envelope.stdout)).toMatchObject({ sequential: 10000, concurrent: 1000, answered: 11000, mismatches: 0 });
    expect(envelope.calls.length).toBe(11000);
    expect(envelope.calls.filter((c) => c.server === "fake" && c.tool === "echo" && c.ok).length).toBe(11000);
  },
  TEST_TIMEOUT_MS,
);

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
