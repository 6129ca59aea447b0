// A session remembered (decision 0014): what opening a session resolved (the config chain and its
// servers, what config.imports brought, every setting with its origins) is kept as a note for the next
// command started with exactly the same inputs, which then skips finding, parsing, validating and
// resolving them again: most of the "config" stage of MCPX_TRACE=1.
//
// A note is kept by everything besides files that resolution depends on (lib/paths/note-file.ts):
// this mcpx (its version, and the signature of the binary itself, since a rebuilt one may resolve
// differently), the directory, --config, the setting flags and the whole environment. Files are
// checked by what they hold, not by when they changed: the note has, for every path resolution looked
// at, the hash of the text it read there, or else what the path held (nothing, or a file it did not
// read). A note is used only when every path still holds that, so a file rewritten within one clock
// tick, or swapped for another with the same size, is still seen.
//
// The trust record of every project file is among the paths looked at (lib/trust/project-trust.ts),
// so a trust given or revoked makes the note useless (docs/decisions/0015).
//
// Only a quiet session is remembered: one that warned about nothing while it opened (no broken server
// entry, no imported file that does not parse, nothing withheld from an untrusted file) and has every
// secret setting unset. So a later run
// never misses a warning it should repeat, and a note never holds a token from the environment.

import { readFileSync } from "node:fs";
import type { LoadedConfig } from "../config/load.ts";
import type { ImportResult } from "../config/imports.ts";
import type { TrustState } from "../trust/project-trust.ts";
import { sha256 } from "../paths/content-file.ts";
import { fileSignature, type FileSignature } from "../paths/file-signature.ts";
import { notePath, readNote, writeNote } from "../paths/note-file.ts";
import { SETTINGS } from "../settings/registry.ts";
import type { FlagValue, ResolvedSetting, ResolvedSettings } from "../settings/resolve.ts";
import { trace } from "../util/trace.ts";
import { VERSION } from "../version.ts";

/** what a session is resolved from, besides files */
export interface SessionKey {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  configFlag?: string;
  flags: readonly FlagValue[];
}

/** what a session resolved, and every path it looked at with what that path held then */
export interface ResolvedSession {
  config: LoadedConfig;
  imports: ImportResult;
  settings: ResolvedSettings;
  consulted: ReadonlyMap<string, FileSignature>;
  trust: TrustState;
}

/** what a path held: the hash of the text read there ("sha256:…"), or its signature (null: nothing there) */
type Held = string | null;

interface Note {
  paths: Array<[string, Held]>;
  config: LoadedConfig;
  imports: ImportResult;
  trust: TrustState;
  /** every setting in registry order, without its declaration (restored by path) */
  settings: Array<[string, Omit<ResolvedSetting, "decl">]>;
}

/** the hash a path's text is remembered by */
export function textHeld(text: string): string {
  return `sha256:${sha256(text)}`;
}

/** where the note kept by `key` lives: a stat of the binary and a hash of the environment, worth doing once per session */
export function sessionNotePath(key: SessionKey): string {
  return notePath(key.env, "session", [VERSION, fileSignature(process.execPath), key.cwd, key.configFlag ?? null, key.flags, key.env]);
}

/** the session a note remembers for exactly this key, if every path it looked at still holds what it did */
export function recallSession(key: SessionKey, path = sessionNotePath(key)): ResolvedSession | undefined {
  const text = readNote(path);
  if (text === undefined) return undefined;
  try {
    const note = JSON.parse(text) as Note;
    const consulted = new Map<string, FileSignature>();
    for (const [path, held] of note.paths) {
      const now = fileSignature(path);
      if (held?.startsWith("sha256:") ? now === null || textHeld(readFileSync(path, "utf8")) !== held : now !== held) return undefined;
      consulted.set(path, now);
    }
    if (note.settings.length !== SETTINGS.length) return undefined;
    const decls = new Map(SETTINGS.map((d) => [d.path, d]));
    const settings: ResolvedSettings = new Map();
    for (const [path, s] of note.settings) {
      const decl = decls.get(path);
      if (!decl) return undefined;
      settings.set(path, { ...s, decl });
    }
    trace("session from its note");
    return { config: note.config, imports: note.imports, settings, consulted, trust: note.trust };
  } catch {
    return undefined; // a file that went between stat and read, or a note this version cannot read
  }
}

/**
 * Remembers a session for the next command with the same key, if it is quiet (above).
 * @param held what each path resolution read held (textHeld); a path only looked at keeps its signature from `consulted`
 */
export function rememberSession(key: SessionKey, s: ResolvedSession, held: ReadonlyMap<string, Held>, path = sessionNotePath(key)): void {
  if (s.imports.warnings.length > 0 || Object.keys(s.config.broken).length > 0 || s.trust.withheld.length > 0) return;
  for (const decl of SETTINGS) if (decl.secret && s.settings.get(decl.path)?.origin !== "default") return;
  const paths = new Set([...s.consulted.keys(), ...held.keys()]);
  const note: Note = {
    paths: [...paths].map((p) => [p, held.has(p) ? held.get(p)! : s.consulted.get(p)!]),
    config: s.config,
    imports: s.imports,
    trust: s.trust,
    settings: [...s.settings].map(([path, { decl: _decl, ...rest }]) => [path, rest]),
  };
  writeNote(path, JSON.stringify(note));
}
