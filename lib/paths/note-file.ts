// A note: what one mcpx process remembers for the next, so that the next can skip work whose result
// it would get again (a one-shot call's server start, decision 0013; a session's config resolution,
// lib/session/session-note.ts, decision 0014). One file per key in a folder of the state directory,
// named by the hash of the key: everything besides files that the remembered result depends on.
// Written whole (a temporary file renamed over it), 0600 in a 0700 folder, because a note may hold
// what config resolved, secrets included (a server entry's env), as the OAuth tokens beside it do.
// A note is only ever a shortcut: one that is missing, unreadable or out of date costs the work it
// would have saved, never a difference. A folder keeps the NOTES_KEPT newest notes.

import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256 } from "./content-file.ts";
import { stateDir } from "./dirs.ts";
import { stableStringify } from "../util/stable-json.ts";

/**
 * How many notes of a kind are kept. A key holds the whole environment, so a caller whose
 * environment differs on every run (a request id in a variable) writes a new note each time; the
 * oldest go once there are more than this. Enough for every directory and shell a person works in.
 */
export const NOTES_KEPT = 64;

/** where the note of `kind` kept by `key` lives (stableStringify sorts object keys and leaves out undefined) */
export function notePath(env: Readonly<Record<string, string | undefined>>, kind: string, key: unknown): string {
  return join(stateDir(env), kind, `${sha256(stableStringify(key)).slice(0, 32)}.json`);
}

/** the note's text, or undefined when there is none (or it cannot be read) */
export function readNote(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** writes the note; a state directory that cannot be written only means no note */
export function writeNote(path: string, text: string): void {
  try {
    if (writePrivateFile(path, text)) keepNewest(dirname(path));
  } catch {
    // no note: the next run does the work itself
  }
}

/**
 * Writes `text` at `path` whole (a temporary file renamed over it), 0600 in a 0700 folder; throws when
 * it cannot. True when there was no file at `path` before.
 */
export function writePrivateFile(path: string, text: string): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fresh = statSync(path, { throwIfNoEntry: false }) === undefined;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
  return fresh;
}

/** removes the oldest notes of a folder beyond NOTES_KEPT */
function keepNewest(dir: string): void {
  const notes = readdirSync(dir).filter((f) => f.endsWith(".json"));
  if (notes.length <= NOTES_KEPT) return;
  const byAge = notes
    .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => a.mtime - b.mtime);
  for (const old of byAge.slice(0, byAge.length - NOTES_KEPT)) rmSync(old.path, { force: true });
}
