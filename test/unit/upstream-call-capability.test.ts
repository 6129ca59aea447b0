// Structural guard for "every call passes the gate" (decision 0016): the pool sends a
// tools/call only through the SEND_TOOLS_CALL capability, which only the gate's call point
// (lib/exec/gated-call.ts) imports, and the pool has no string-named method that sends an ordinary
// call. Its one other way upstream, callHookTool, is the gate's own machinery for the `_` lifecycle
// hook tools and refuses any other name. A new caller of the capability makes this test fail.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Glob } from "bun";
import { Pool } from "../../lib/mcp/pool.ts";

const ROOT = `${import.meta.dir}/../..`;
/** the files allowed to name the capability: where it is made, where it is kept, and the call point */
const ALLOWED = ["lib/mcp/upstream-call.ts", "lib/mcp/pool.ts", "lib/exec/gated-call.ts", "lib/exec/gated-feature.ts"];

function sourceFiles(): string[] {
  return ["cmd", "lib", "launcher", "fixtures", "test"].flatMap((dir) => [...new Glob(`${dir}/**/*.ts`).scanSync({ cwd: ROOT })]);
}

describe("the pool's tools/call is reachable only through the gate's call point", () => {
  test("no file but the call point, the pool and the capability's own module references SEND_TOOLS_CALL or upstream-call.ts", () => {
    const self = "test/unit/upstream-call-capability.test.ts";
    const offenders = sourceFiles().filter((f) => {
      if (ALLOWED.includes(f) || f === self) return false;
      const text = readFileSync(`${ROOT}/${f}`, "utf8");
      return text.includes("SEND_TOOLS_CALL") || text.includes("upstream-call");
    });
    expect(offenders).toEqual([]);
  });

  test("the Pool has no string-named method that sends a tools/call (no `call`)", () => {
    const names = Object.getOwnPropertyNames(Pool.prototype);
    expect(names).not.toContain("call");
    expect(names).toContain("callHookTool");
  });

  test("callHookTool refuses a tool whose name does not start with `_`, before any server is reached", async () => {
    const pool = new Pool({}, { log: () => {}, callTimeoutMs: 1000, startTimeoutMs: 1000, maxMessageBytes: 1 << 20, baseEnv: {} });
    await expect(pool.callHookTool("fake", "delete_x", {}, 1000)).rejects.toThrow(
      'Pool.callHookTool calls only lifecycle hook tools (names starting with "_"), not "fake.delete_x"',
    );
  });
});
