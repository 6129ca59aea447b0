// The test command (make test, .ci/run): runs bun test over test/unit and test/e2e and ends with
// the line `N passed, N failed` that CI reads (bun test prints no such line, and prints its summary
// on stderr). Exits non-zero on any failure, and when no test ran at all.
// Usage: bun run test/run.ts [unit|e2e|PATH…]

import { spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const which = process.argv.slice(2);
const paths = which.length === 0 ? ["test/unit", "test/e2e"] : which.map((w) => (w === "unit" || w === "e2e" ? `test/${w}` : w));
// the tests' sandboxes go here (test/e2e/harness.ts), and all of it goes once bun test has ended
const scratch = mkdtempSync(join(tmpdir(), "mcpx-test-run-"));
const proc = spawn([process.execPath, "test", "--timeout", "60000", ...paths], {
  stdout: "inherit",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0", MCPX_TEST_TMP: scratch },
});

let text = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  const s = decoder.decode(chunk, { stream: true });
  text += s;
  process.stderr.write(s);
}
const code = await proc.exited;
rmSync(scratch, { recursive: true, force: true });
const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
const passed = count(/^\s*(\d+) pass$/m);
const failed = count(/^\s*(\d+) fail$/m) + count(/^\s*(\d+) errors?$/m);
const skipped = count(/^\s*(\d+) skip$/m);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(code !== 0 || failed > 0 || passed === 0 ? 1 : 0);
