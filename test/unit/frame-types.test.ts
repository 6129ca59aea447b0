// The frame types' one table (lib/exec/frames.ts) and docs/frames.md say the same: every declared type
// stands in the documented order, and every type the order shows is declared. That each is produced by
// a real run is proved where it is made (the progress frame and a server's log frame:
// test/e2e/server-notes.test.ts).

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FRAME_TYPES } from "../../lib/exec/frames.ts";

const doc = readFileSync(join(import.meta.dir, "../../docs/frames.md"), "utf8");
/** the frame order block: the first fenced block of docs/frames.md */
const order = /```\n([\s\S]*?)```/.exec(doc)![1]!;
/** the type names the order block shows: each line's frames, before its explanation */
const documented = new Set(
  order.split("\n").flatMap((line) => [...line.replace(/\s{2,}.*$/, "").matchAll(/(?<![.\w])([a-z]+(?:\.[a-z]+)?)(?=\{|\s|\||$)/g)].map((m) => m[1]!)),
);

test("every declared frame type stands in docs/frames.md's frame order", () => {
  expect(Object.keys(FRAME_TYPES).filter((t) => !documented.has(t))).toEqual([]);
});

test("every frame type docs/frames.md's order shows is declared in the frame types table", () => {
  expect([...documented].filter((t) => !(t in FRAME_TYPES))).toEqual([]);
});
