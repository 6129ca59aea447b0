// An empty XDG_CACHE_HOME means "unset" (the XDG spec): mcpx, and the Bun it embeds or starts for a
// script, write nothing into the working directory (Bun made it the relative `bun/@t@/` before).

import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

describe("an empty XDG_CACHE_HOME", () => {
  test("a run and a call leave the working directory empty", async () => {
    const sb = sandbox();
    const work = join(sb.dir, "work");
    mkdirSync(work);
    const opts = { cwd: work, env: { XDG_CACHE_HOME: "" } };
    const run = await mcpx(sb, ["exec", "return 1"], opts);
    expectExit(run, 0);
    expect(run.stdout).toBe("1\n");
    const call = await mcpx(sb, ["call", "--stdio", EVERYTHING, "echo", "message=hi"], opts);
    expectExit(call, 0);
    expect(call.stdout).toBe("Echo: hi\n");
    expect(readdirSync(work)).toEqual([]);
  });
});
