// An observe hook runs after the fact and never delays anything, but a command that is ending waits
// for the observers still running, so none is cut off mid-way: for hooks.observeGrace, not for each
// one's whole hooks.timeout (30 s by default). Before the grace, `mcpx exec 'return 1'` with an
// observer that hung held the shell for 30 s and said nothing.

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sandbox } from "./harness.ts";
import { leftoverProcesses, mcpx, uniqueMarker, writeConfig } from "./support.ts";

describe("observe hooks at a command's end", () => {
  test("an observer still running after hooks.observeGrace is ended, with what it started, and named on stderr", async () => {
    const sb = sandbox();
    const marker = uniqueMarker("observe-grace");
    writeConfig(sb, ".mcpx.json", { hooks: [{ name: "slow-observer", on: "script.finished", phase: "observe", run: ["sh", "-c", "sleep 300"] }] });
    // the harness kills a command still running after 20 s: a hold for hooks.timeout (30 s) fails here
    const r = await mcpx(sb, ["exec", "--hooks-observe-grace", "300ms", "return 1"], { env: { OBSERVE_MARKER: marker }, killAfterMs: 20_000 });
    expect(r.stderr).not.toContain("[harness] killed");
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe("1");
    expect(r.stderr).toContain("observe hook slow-observer still ran 300ms after the command ended and was ended (hooks.observeGrace");
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  test("an observer that finishes within the grace runs to its end, and nothing is said", async () => {
    const sb = sandbox();
    const done = join(sb.dir, "observed");
    writeConfig(sb, ".mcpx.json", {
      hooks: [{ name: "quick-observer", on: "script.finished", phase: "observe", run: ["sh", "-c", `sleep 0.2; echo > ${done}`] }],
    });
    const r = await mcpx(sb, ["exec", "--hooks-observe-grace", "10s", "return 1"]);
    expect(r.code).toBe(0);
    expect(existsSync(done)).toBe(true);
    expect(r.stderr).not.toContain("observeGrace");
  });
});
