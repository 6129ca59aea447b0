// The MCP conformance suite's client scenarios against mcpx (test/conformance/client-run.ts), as part
// of `make test`: every scenario of both eras (2025, and 2026-07-28) either passes or is listed, with
// its reason, under `client:` in test/conformance/expected-failures.yml.

import { expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, ROOT } from "./harness.ts";

/** every client scenario of both eras, three at a time, each a few mcpx processes against the suite's servers */
const SUITE_TIMEOUT_MS = 240_000;

test(
  "the conformance suite's client scenarios, run through mcpx ls, auth and call, find no failure beyond the baseline",
  async () => {
    const proc = Bun.spawn([BUN, join(ROOT, "test/conformance/client-run.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) console.error(out.slice(-8000), err.slice(-2000));
    expect(code).toBe(0);
    expect(err).toContain("every failure is expected");
  },
  SUITE_TIMEOUT_MS,
);
