// `--artifacts DIR`: each artifact the run made written into a directory of the user's by its name.
// The name passed the one-file-name rule when the script made it (lib/paths/file-name.ts), so it
// cannot leave DIR; the file is never written through a link (a link in its place is an existing
// file: refused, or with --force replaced by rename, never followed), and an existing file is never
// overwritten without --force.

import { chmodSync, constants, copyFileSync, existsSync, lstatSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/usage-error.ts";
import type { Frame } from "../exec/frames.ts";
import { randomHex } from "../util/random-bytes.ts";

export interface ArtifactTarget {
  dir: string;
  force: boolean;
}

/** a usage error before the run when DIR is not a directory: nothing would be written */
export function checkArtifactDir(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--artifacts ${dir}: not a directory (make it first: mkdir -p ${dir})`);
}

/** where the artifact's bytes are on this machine: its file:// uri's path */
export function localArtifactPath(f: Extract<Frame, { type: "artifact" }>): string | undefined {
  return f.uri.startsWith("file://") ? Bun.fileURLToPath(f.uri) : undefined;
}

/** writes one artifact into the target; the path written, or why not (a sentence naming the file and --force) */
export function writeArtifact(f: Extract<Frame, { type: "artifact" }>, to: ArtifactTarget): { ok: true; path: string } | { ok: false; message: string } {
  const from = localArtifactPath(f);
  if (!from) return { ok: false, message: `artifact ${f.name} is at ${f.uri}, not on this machine` };
  const dest = join(to.dir, f.name);
  let there = false;
  try {
    lstatSync(dest);
    there = true;
  } catch {
    there = false;
  }
  if (there && !to.force) return { ok: false, message: `artifact ${f.name} not written: ${dest} exists (--force replaces it)` };
  // copied beside and renamed over: a link at dest is replaced itself, and a reader never sees half a file
  const tmp = join(to.dir, `.${f.name}.${randomHex(4)}.tmp`);
  try {
    copyFileSync(from, tmp, constants.COPYFILE_EXCL);
    // the cache's copy is private; the user's is made as any file they write would be
    chmodSync(tmp, 0o666 & ~process.umask());
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    return { ok: false, message: `artifact ${f.name} not written to ${dest}: ${(err as Error).message}` };
  }
  return { ok: true, path: dest };
}
