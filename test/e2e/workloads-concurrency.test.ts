// Concurrency under load: 1,000 calls of 100 KB each in flight at once from one script,
// every answer to its own caller. Each message carries its call's id at both ends, and each answer of
// the second test is different content (its own seed), so a swapped, truncated or merged answer shows.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { IMPORT_PAYLOAD, KILL_AFTER_MS, KiB, RUN_TIMEOUT, TEST_TIMEOUT_MS } from "./workloads-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const run = (source: string) => mcpx(sb, ["exec", "--timeout", RUN_TIMEOUT, source], { killAfterMs: KILL_AFTER_MS });
const CALLS = 1000;
const SIZE = 100 * KiB;

describe.concurrent("1,000 concurrent calls of 100 KB", () => {
  test(
    "1,000 concurrent 100 KB arguments echoed back each reach their own caller",
    async () => {
      const r = await run(`${IMPORT_PAYLOAD}
const body = payload(${SIZE}, 11);
const messages = Array.from({ length: ${CALLS} }, (_, i) => "<" + i + ">" + body + "</" + i + ">");
const answers = await Promise.all(messages.map((message) => fake.echo({ message })));
const own = answers.filter((a, i) => a === messages[i]).length;
const wrong = answers.flatMap((a, i) => (a === messages[i] ? [] : [i + ": " + String(a).slice(0, 12) + "… (" + String(a).length + " bytes)"]));
console.log(own + " own answers");
if (wrong.length) console.log("wrong: " + wrong.slice(0, 5).join("; "));`);
      expectExit(r, 0);
      expect(r.stdout).toBe(`${CALLS} own answers\n`);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    "1,000 concurrent 100 KB results, each different, each reach their own caller",
    async () => {
      const r = await run(`${IMPORT_PAYLOAD}
const answers = await Promise.all(Array.from({ length: ${CALLS} }, (_, i) => fake.bytes({ size: ${SIZE}, seed: i + 1 })));
const wrong = answers.flatMap((a, i) => (sha256(a) === sha256(payload(${SIZE}, i + 1)) ? [] : [i]));
console.log((${CALLS} - wrong.length) + " own answers" + (wrong.length ? "; wrong: " + wrong.slice(0, 10).join(",") : ""));`);
      expectExit(r, 0);
      expect(r.stdout).toBe(`${CALLS} own answers\n`);
    },
    TEST_TIMEOUT_MS,
  );
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
