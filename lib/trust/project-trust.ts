// A project's config is untrusted until the user trusts it (docs/decisions/0015), as direnv,
// mise and Claude Code treat a cloned repository's files. A project file is one mcpx finds walking up
// from the working directory (.mcpx.json, .mcpx/config.json), another tool's project file it imports
// (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, opencode.json) and a plugin manifest such a file
// lists. The user's own config, other tools' files at their fixed user places and a file named by
// --config / MCPX_CONFIG are trusted without asking.
//
// From an untrusted file, what runs code or widens what runs is withheld: each setting whose registry
// row has `trust` (lib/settings/registry.ts), a stdio server (it starts a program), an http server
// whose url or headers take a ${VAR} (it sends the user's environment to a place the file chose), and
// a plugin. The rest of the file (a plain url server, exec.timeout) is used. Nothing is dropped in
// silence: one warning per file names it and `mcpx trust`, and a command that needs a withheld entry
// fails with exit 2 naming the file, the key and the command that trusts it (refuseUntrusted).

import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { expandVars } from "../config/expand.ts";
import type { ConfigFile, LoadedConfig } from "../config/load.ts";
import type { ImportResult } from "../config/imports.ts";
import { ConfigError } from "../config/errors.ts";
import { locateKey, parseJsonc, type Position } from "../config/jsonc.ts";
import type { ServerConfig } from "../config/server-config.ts";
import { SETTINGS } from "../settings/registry.ts";
import type { CommandName, SettingDecl } from "../settings/setting-decl.ts";
import { settingsFor } from "../settings/setting-names.ts";
import { isPlainObject } from "../util/json-type.ts";
import { readRecord, recordPath } from "./trust-store.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** one entry of an untrusted file that was not used */
export interface Withheld {
  file: string;
  /** the key as the file has it: a setting's path, or mcpServers.NAME */
  key: string;
  /** the registry path, when the entry is a setting */
  setting?: string;
  /** what the file set there (mcpx hooks list shows a withheld plugin or hook by it) */
  value?: unknown;
  /** why it waits for trust, for the error: "runs code", … */
  why: string;
  at?: Position;
}

/** what trust decided for a session */
export interface TrustState {
  /** every project file in force here (mcpx's own, imported tools'), and whether it is trusted now */
  files: Array<{ path: string; trusted: boolean }>;
  withheld: Withheld[];
}

/** the settings an untrusted file may not set: one declaration, the registry's `trust` flag */
const GATED_SETTINGS: readonly SettingDecl[] = SETTINGS.filter((s) => s.trust !== undefined);

const WHY = { runs: "it runs code", widens: "it widens what runs or what decides" } as const;

/**
 * Whether the file at `path` is trusted as holding text whose contentHash is `hash`. The record's
 * path goes to `onProbe`, so a session remembered by what it looked at sees a trust given or revoked.
 */
export function isTrusted(env: Env, path: string, hash: string, onProbe?: (path: string) => void): boolean {
  const key = trustKey(path);
  onProbe?.(recordPath(env, key));
  return readRecord(env, key)?.sha256 === hash;
}

/**
 * The path a file is trusted by: its directory's real path and its own name. A directory on the way
 * that is a link is the same directory (a symlinked checkout is the same file), but a file that is a
 * link is trusted under its own name: a link elsewhere to a trusted file is not trusted, since what
 * the file names relative to itself (plugins, @FILE lines, a server's cwd) is found beside the link.
 */
export function trustKey(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path; // a directory that is gone: nothing there to trust
  }
}

/**
 * mcpx's own files, each with its gated settings taken out when it is an untrusted project file: what
 * settings are resolved from. `trusted(file)` says whether a project file is trusted; `project(path)`
 * which files are a project's.
 */
export function withholdSettings(
  files: readonly ConfigFile[],
  project: (path: string) => boolean,
  trusted: (file: ConfigFile) => boolean,
): { files: ConfigFile[]; state: TrustState } {
  const state: TrustState = { files: [], withheld: [] };
  const out = files.map((file) => {
    if (!project(file.path)) return file;
    const ok = trusted(file);
    state.files.push({ path: file.path, trusted: ok });
    if (ok) return file;
    let data = file.data;
    for (const decl of GATED_SETTINGS) {
      const taken = takeSetting(data, decl);
      if (!taken) continue;
      data = taken.data;
      const at = locateKey(file.text, decl.path.split(".")) ?? locateKey(file.text, [decl.path]);
      state.withheld.push({ file: file.path, key: decl.path, setting: decl.path, value: taken.value, why: WHY[decl.trust!], ...(at ? { at } : {}) });
    }
    return data === file.data ? file : { ...file, data };
  });
  return { files: out, state };
}

/**
 * Moves the servers of untrusted files that start a program, or send the environment's values to a
 * url, out of `config.servers` into `config.broken`, marked untrusted, with the error their use raises.
 * `rootOf` gives the key path of an imported file's server map (["servers"] for VS Code).
 */
export function withholdServers(
  config: LoadedConfig,
  imports: ImportResult,
  untrusted: ReadonlySet<string>,
  rootOf: (kind: string, file: string) => readonly (string | number)[],
  state: TrustState,
): void {
  const own = new Map(config.files.map((f) => [f.path, f]));
  for (const [name, server] of Object.entries(config.servers)) {
    if (!untrusted.has(server.origin)) continue;
    const file = own.get(server.origin);
    const raw = server.imported
      ? imports.kinds.find((k) => k.kind === server.imported)?.entries[name]
      : (parseJsonc(file!.text, file!.path) as { mcpServers?: Record<string, unknown> }).mcpServers?.[name];
    const why = serverWhy(server, raw);
    if (!why) continue;
    const path = [...(server.imported ? rootOf(server.imported, server.origin) : ["mcpServers"]), name];
    const at = file ? locateKey(file.text, path) : undefined;
    const w: Withheld = { file: server.origin, key: path.join("."), value: raw, why, ...(at ? { at } : {}) };
    state.withheld.push(w);
    delete config.servers[name];
    config.broken[name] = { name, origin: server.origin, ...(server.imported ? { imported: server.imported } : {}), error: untrustedError(w), untrusted: true };
  }
}

/** why a server of an untrusted file waits for trust; undefined: it may be used (a url server with literal values) */
function serverWhy(server: ServerConfig, raw: unknown): string | undefined {
  if (server.kind === "stdio") return "it starts a program";
  const entry = isPlainObject(raw) ? raw : {};
  const strings = [
    entry.url,
    ...(isPlainObject(entry.headers) ? Object.values(entry.headers) : []),
    ...(isPlainObject(entry.oauth) ? Object.values(entry.oauth) : []),
  ].filter((s): s is string => typeof s === "string");
  return strings.some(usesVariable) ? "it sends values of your environment (${VAR}) to a url the file names" : undefined;
}

/** whether a string takes a variable's value when expanded */
function usesVariable(s: string): boolean {
  let used = false;
  const env = new Proxy({} as Env, {
    get: () => {
      used = true;
      return "x";
    },
  });
  try {
    expandVars(s, env, () => {
      throw new Error("not a variable");
    });
  } catch {
    return true; // a reference mcpx cannot expand is no plain value either
  }
  return used;
}

/** the error a command that needs a withheld entry fails with: exit 2, naming the file, the key and how to trust it */
export function untrustedError(w: Withheld): ConfigError {
  return new ConfigError({
    file: w.file,
    ...(w.at ?? {}),
    key: w.key,
    detail: `not used, because ${w.why} and this file is not trusted: review it, then run \`mcpx trust ${w.file}\` (docs/security.md)`,
  });
}

/** the one warning each untrusted file with withheld entries gets, naming it and `mcpx trust` */
export function trustWarnings(state: TrustState): string[] {
  const byFile = new Map<string, string[]>();
  for (const w of state.withheld) byFile.set(w.file, [...(byFile.get(w.file) ?? []), w.key]);
  return [...byFile].map(
    ([file, keys]) =>
      `${file} is not trusted, so what in it runs code or widens what runs is not used (${keys.join(", ")}): ` + `review it, then run \`mcpx trust ${file}\``,
  );
}

/**
 * Commands that only show what is configured: they show a withheld entry as not trusted instead of
 * failing (mcpx ls lists the server as not started, mcpx hooks list the plugin, mcpx settings the
 * value without it). Every other command fails on the first withheld setting it takes (the registry's
 * `commands`); a withheld server fails only the command or script that uses it.
 */
const SHOWING: readonly CommandName[] = ["ls", "types", "search", "settings", "hooks", "config", "auth"];

/** throws the error of the first withheld setting `command` needs (exit 2) */
export function refuseUntrusted(state: TrustState, command: CommandName): void {
  if (SHOWING.includes(command)) return;
  const takes = new Set(settingsFor(command).map((d) => d.path));
  const w = state.withheld.find((x) => x.setting !== undefined && takes.has(x.setting));
  if (w) throw untrustedError(w);
}

/** `data` without the setting `decl` (nested or dotted), and what it held; undefined when the file does not set it */
function takeSetting(data: Record<string, unknown>, decl: SettingDecl): { data: Record<string, unknown>; value: unknown } | undefined {
  const parts = decl.path.split(".");
  const out = structuredClone(data);
  let value: unknown;
  // {"hooks": {"autonomy": …}} is the group of settings under hooks, not the hooks list
  const isGroup = (v: unknown) => parts.length === 1 && isPlainObject(v) && SETTINGS.some((s) => s.path.startsWith(decl.path + "."));
  if (Object.hasOwn(out, decl.path) && !isGroup(out[decl.path])) {
    value = out[decl.path];
    delete out[decl.path];
  }
  if (parts.length > 1) {
    let parent: unknown = out;
    for (const part of parts.slice(0, -1)) parent = isPlainObject(parent) ? parent[part] : undefined;
    const last = parts[parts.length - 1]!;
    if (isPlainObject(parent) && Object.hasOwn(parent, last)) {
      value ??= parent[last];
      delete parent[last];
    }
  }
  return value === undefined ? undefined : { data: out, value };
}
