// Walking up: a directory and every directory above it, nearest first. Config discovery, named
// scripts and the runtime lookup in node_modules/.bin all search this way.

import { dirname, resolve } from "node:path";

export function ancestors(dir: string): string[] {
  const out = [resolve(dir)];
  for (let d = out[0]!; dirname(d) !== d; d = dirname(d)) out.push(dirname(d));
  return out;
}
