// The MCP conformance suite against the daemon's /mcp (test/conformance/run.ts), as part of `make test`: every scenario
// of both eras either passes or is listed, with its reason, in test/conformance/expected-failures.yml
// (2025) or expected-failures-2026.yml (2026-07-28).

import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT } from "./harness.ts";

test("the MCP conformance suite finds no failure beyond the committed baseline", async () => {
  const proc = Bun.spawn([BUN, join(ROOT, "test/conformance/run.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) console.error(out.slice(-4000), err.slice(-2000));
  expect(code).toBe(0);
  expect(out + err).toContain("every failure is expected");
});
