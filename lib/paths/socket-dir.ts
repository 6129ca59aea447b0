// The private directory a run's channel socket lives in (lib/paths/dirs.ts runtimeDir). A directory
// someone else made first — the predictable /tmp/mcpx-UID-HASH fallback is the case: another user
// can create it before us — must never hold our sockets: it is checked, and when it is not ours
// alone (another owner, a symlink, a mode we cannot make 0700) a fresh private directory is used
// instead, with a note saying why, rather than failing every run with EPERM on chmod.

import { chmodSync, lstatSync, mkdirSync, mkdtempSync, type Stats } from "node:fs";
import { join } from "node:path";

export interface SocketDir {
  dir: string;
  /** set when `dir` is not the directory asked for: why, and how to get that one back */
  note?: string;
}

/** why `dir` cannot hold our sockets, or undefined when it is a 0700 directory of ours */
export function unsafeDirReason(stat: Pick<Stats, "isSymbolicLink" | "isDirectory" | "uid" | "mode">, uid: number): string | undefined {
  if (stat.isSymbolicLink()) return "is a symlink";
  if (!stat.isDirectory()) return "is not a directory";
  if (stat.uid !== uid) return `belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  if ((stat.mode & 0o077) !== 0) return `has mode ${(stat.mode & 0o777).toString(8)}, not 700`;
  return undefined;
}

const replaced = new Map<string, SocketDir>();

/** `dir`, created 0700 if missing and checked; or, if it is not ours alone, a fresh private directory in /tmp */
export function privateSocketDir(dir: string): SocketDir {
  const known = replaced.get(dir);
  if (known) return known;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  let why: string | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    let stat = lstatSync(dir);
    why = unsafeDirReason(stat, uid);
    if (why && !stat.isSymbolicLink() && stat.isDirectory() && stat.uid === uid) {
      // our own directory with a loose mode: tighten it, as mcpx always did
      chmodSync(dir, 0o700);
      stat = lstatSync(dir);
      why = unsafeDirReason(stat, uid);
    }
  } catch (err) {
    why = `cannot be used (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (!why) return { dir };
  const alt = mkdtempSync(join("/tmp", `mcpx-${uid}-`));
  chmodSync(alt, 0o700);
  const out = {
    dir: alt,
    note: `the socket directory ${dir} ${why}, so run channels use ${alt} instead: remove ${dir}, or set XDG_RUNTIME_DIR to a private directory of yours`,
  };
  replaced.set(dir, out);
  return out;
}
