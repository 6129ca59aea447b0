// Which project config files the user trusts (docs/decisions/0015): one record per file in
// $XDG_STATE_HOME/mcpx/trust, named by the hash of the file's path, holding that path and the sha256
// of the text mcpx read there when `mcpx trust` was run. A record is trust only while the file still
// holds that text: a changed file is untrusted again. One file per record, so trusting one file never
// rewrites another's record, and a session remembers (by its signature) exactly the records it read.
// Written like the notes beside it (lib/paths/note-file.ts): whole, by rename, 0600 in a 0700 folder.

import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../paths/content-file.ts";
import { stateDir } from "../paths/dirs.ts";
import { writePrivateFile } from "../paths/note-file.ts";

type Env = Readonly<Record<string, string | undefined>>;

export interface TrustRecord {
  /** the file's absolute path, as mcpx finds it (lib/trust/project-trust.ts trustKey) */
  path: string;
  /** sha256 (hex) of the text trusted */
  sha256: string;
  /** when it was trusted (ISO 8601) */
  trustedAt: string;
}

/** the folder of trust records */
function trustDir(env: Env): string {
  return join(stateDir(env), "trust");
}

/** where the record of `path` lives (whether or not there is one) */
export function recordPath(env: Env, path: string): string {
  return join(trustDir(env), `${sha256(path).slice(0, 32)}.json`);
}

/** the hash a file's text is trusted by */
export function contentHash(text: string): string {
  return sha256(text);
}

/** the record of `path`, if there is one that reads as one (a record for another path at its name is none) */
export function readRecord(env: Env, path: string): TrustRecord | undefined {
  const record = parseRecord(recordPath(env, path));
  return record?.path === path ? record : undefined;
}

/** trusts `path` as holding `text` now, replacing any record it had */
export function writeRecord(env: Env, path: string, text: string): TrustRecord {
  const record: TrustRecord = { path, sha256: contentHash(text), trustedAt: new Date().toISOString() };
  writePrivateFile(recordPath(env, path), JSON.stringify(record) + "\n");
  return record;
}

/** forgets `path`; false when it had no record */
export function removeRecord(env: Env, path: string): boolean {
  if (!readRecord(env, path)) return false;
  rmSync(recordPath(env, path), { force: true });
  return true;
}

/** every record, by path */
export function listRecords(env: Env): TrustRecord[] {
  let names: string[];
  try {
    names = readdirSync(trustDir(env)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const records = names.map((n) => parseRecord(join(trustDir(env), n))).filter((r): r is TrustRecord => r !== undefined);
  return records.sort((a, b) => a.path.localeCompare(b.path));
}

function parseRecord(file: string): TrustRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(file, "utf8")) as Partial<TrustRecord>;
    return typeof r.path === "string" && typeof r.sha256 === "string" && typeof r.trustedAt === "string"
      ? { path: r.path, sha256: r.sha256, trustedAt: r.trustedAt }
      : undefined;
  } catch {
    return undefined; // none, or not one: no trust
  }
}
