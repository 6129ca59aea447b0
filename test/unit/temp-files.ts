// Throwaway directories for unit tests that read real files. Each test file that uses them says
// `afterAll(removeTempRoots)` itself: an afterAll here, in a shared module, would register only for
// the first file that imports it.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const roots: string[] = [];

export function removeTempRoots(): void {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** A fresh temp dir (realpath'd, so macOS /private/var does not confuse path comparisons). */
export function tempRoot(prefix = "mcpx-unit-"): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  roots.push(root);
  return root;
}

/** writes text to path, creating its directories; returns the path */
export function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}
