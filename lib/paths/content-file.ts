// Content-addressed files: the name is the hash of the text, so concurrent runs never collide and a
// file, once written, never changes under a running script. Hashed with Bun's native hasher:
// loading node:crypto costs every run several ms of start-up.

import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function sha256(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** writes `text` to dir/<prefix><hash><ext> unless it exists; returns the path */
export function writeContentFile(dir: string, prefix: string, ext: string, text: string): string {
  const path = join(dir, `${prefix}${sha256(text).slice(0, 24)}${ext}`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // write-then-rename: a reader never sees a half-written file
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
  return path;
}

/** a directory of files named by the hash of all of them; returns its path */
export function writeContentDir(parent: string, prefix: string, files: Record<string, string>): string {
  const names = Object.keys(files).sort();
  const dir = join(parent, prefix + sha256(names.map((n) => `${n}\0${files[n]}`).join("\0")).slice(0, 24));
  if (existsSync(join(dir, names[names.length - 1]!))) return dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // the last name is written last, so its presence (checked above) means the set is complete
  for (const name of names) renameInto(dir, name, files[name]!);
  return dir;
}

function renameInto(dir: string, name: string, text: string): void {
  const tmp = join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, join(dir, name));
}

/**
 * Writes a generated file beside the user's own (mcpx-globals.d.ts): a new file in the same directory,
 * created exclusively, then renamed over the name. A symlink planted at the name is replaced, never
 * followed, so the write cannot reach a file elsewhere. Unchanged text is not rewritten.
 */
export function writeGeneratedFile(path: string, text: string, mode = 0o644): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st?.isFile() && readFileSync(path, "utf8") === text) return;
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, text, { mode, flag: "wx" });
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
