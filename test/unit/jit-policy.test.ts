// The binary starts with JavaScriptCore's tier-up thresholds scaled up (build.ts JIT_POLICY), so a
// one-shot command's run-once code is not JIT-compiled on a core its runtime or server needs; code
// that serves many calls puts the normal policy back (lib/util/jit-policy.ts). Kept scaled, a
// script's 10,000 calls took 13% longer each; these hold both halves in place.

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

test("servingCalls puts the normal JIT policy back, once, however often it is called", async () => {
  const unsafe = Bun.unsafe as { setJITPolicy?: (scale: number) => void };
  const real = unsafe.setJITPolicy;
  const told: number[] = [];
  unsafe.setJITPolicy = (scale) => void told.push(scale);
  try {
    const { servingCalls } = await import("../../lib/util/jit-policy.ts");
    servingCalls();
    servingCalls();
    expect(told).toEqual([1]);
  } finally {
    unsafe.setJITPolicy = real;
  }
});

test("the binary is built with a scaled JIT policy, and every process that serves calls resets it", () => {
  const policy = /const JIT_POLICY = Number\(process\.env\.MCPX_JIT_POLICY \?\? (\d+)\)/.exec(text("build.ts"));
  expect(Number(policy?.[1])).toBeGreaterThan(1);
  expect(text("build.ts")).toContain("--compile-jit-policy=${JIT_POLICY}");
  // a script's run (its calls), the daemon, mcpx serve
  for (const file of ["lib/runtime/runner.ts", "lib/daemon/server.ts", "lib/mcpserver/stdio.ts"]) expect(text(file)).toContain("servingCalls();");
});
