// Comments say why in words a reader of the repository can follow: an "issue N" names a tracker the
// repository does not carry, so it says nothing to whoever reads the code next. (Figures belong in a
// decision record or `make bench`, which re-measures them; that is a review rule, since a duration
// in a comment may be a setting's documented value.)

import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

test("no source file under lib, cmd, launcher, fixtures or test cites an issue by number", () => {
  const cited = ["lib", "cmd", "launcher", "fixtures", "test"]
    .flatMap((d) => sources(join(ROOT, d)))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bissue \d/i.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
    );
  expect(cited).toEqual([]);
});
