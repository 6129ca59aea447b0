// The line-length check (make lint): no line of a tracked .ts, .json or .jsonc file or a Makefile is longer
// than 160 characters. Biome's formatter wraps code at the same width but cannot wrap a long
// string, template or comment; split a string into "…" + "…" pieces (a template spanning lines would put the
// newline into the value). Exits 1 naming file:line for each long line.
// Usage: bun run test/line-length.ts

import { readFileSync } from "node:fs";

/** the longest line allowed, in characters (code points); biome.jsonc's lineWidth is the same */
const MAX_LINE = 160;

const listed = Bun.spawnSync(["git", "ls-files", "-z", "--", "*.ts", "*.json", "*.jsonc", "Makefile", "**/Makefile"], { stderr: "inherit" });
if (listed.exitCode !== 0) throw new Error("line-length: git ls-files failed (run it inside the repository)");
const files = listed.stdout.toString().split("\0").filter(Boolean);

const long: string[] = [];
for (const file of files) {
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, i) => {
      const length = [...line].length;
      if (length > MAX_LINE) long.push(`${file}:${i + 1}: ${length} characters`);
    });
}
if (long.length) {
  console.error(`line-length: ${long.length} line(s) over ${MAX_LINE} characters (split the string into "…" + "…" pieces):`);
  for (const l of long) console.error(`  ${l}`);
  process.exit(1);
}
