// Resolving every setting from its layers: default < config files (farthest → nearest) < environment
// < flags. Scalars take the highest layer present; list-shaped kinds layer by the null-splice rule.
// Every value remembers where it came from and what it shadowed, for `mcpx settings` and /v1/settings.

import { readFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import { locateKey } from "../config/jsonc.ts";
import { McpxError } from "../errors/mcpx-error.ts";
import { spliceLayers } from "../config/null-splice.ts";
import { suggest } from "../util/did-you-mean.ts";
import { isPlainObject, jsonType } from "../util/json-type.ts";
import { parseDuration } from "./duration.ts";
import { SETTINGS } from "./registry.ts";
import { isListKind, type SettingDecl } from "./setting-decl.ts";
import { envName } from "./setting-names.ts";

/** a setting that does not parse or cannot work: exit 2 (lib/errors/codes.ts SETTINGS) */
export class SettingsError extends McpxError {
  constructor(message: string) {
    super(message, "SETTINGS");
  }
}

export interface Sourced<T = unknown> {
  value: T;
  origin: string;
}

export interface ResolvedSetting {
  decl: SettingDecl;
  /** the effective value: parsed scalar, or for list kinds the array of item values */
  value: unknown;
  /** the highest layer that contributed */
  origin: string;
  /** list kinds: each item with its own origin */
  items?: Sourced[];
  /** values from lower layers that this one replaced */
  shadowed: Sourced[];
}

export interface FlagValue {
  path: string;
  /** the spelling used, with dashes: "--before" */
  spelling: string;
  value: string;
}

export interface SettingsInput {
  /** config files, lowest precedence first, as loaded by lib/config */
  files: ReadonlyArray<{ path: string; data: Record<string, unknown> /** the file's text, to give source lines their line numbers */; text?: string }>;
  env: Record<string, string | undefined>;
  flags: readonly FlagValue[];
  cwd: string;
  /** told the text of every file a source line names with @path, as it was read */
  onRead?: (path: string, text: string) => void;
}

export type ResolvedSettings = Map<string, ResolvedSetting>;

/** the one splice marker on flags and in variables; JSON uses null */
const SPLICE_MARK = "-";

export function resolveSettings(input: SettingsInput): ResolvedSettings {
  for (const file of input.files) checkKnownKeys(file.path, file.data, file.text);
  const read: ReadSource = (path) => {
    const text = readFileSync(path, "utf8");
    input.onRead?.(path, text);
    return text;
  };
  const out: ResolvedSettings = new Map();
  for (const decl of SETTINGS) out.set(decl.path, resolveOne(decl, input, read));
  return out;
}

/** reads the file a source line names with @path */
type ReadSource = (path: string) => string;

type Layer = { origin: string; items: unknown[]; itemOrigins?: Array<string | undefined> } | undefined;

function resolveOne(decl: SettingDecl, input: SettingsInput, read: ReadSource): ResolvedSetting {
  // the default goes through the same parser as every other layer, so "60s" is 60000 everywhere
  const layers: Layer[] = [
    { origin: "default", items: isListKind(decl.kind) ? (decl.default as unknown[]) : [scalarFromJson(decl, decl.default, `default of ${decl.path}`)] },
  ];
  for (const file of input.files) layers.push(withLineOrigins(decl, file, fileLayer(decl, file.path, file.data, read, file.text)));
  layers.push(envLayer(decl, input.env, input.cwd, read));
  layers.push(flagLayer(decl, input.flags, input.cwd, read));

  if (isListKind(decl.kind)) {
    const spliced = spliceLayers(layers as Array<{ origin: string; items: Array<unknown | null> } | undefined>);
    const present = layers.filter((l) => l !== undefined);
    return {
      decl,
      value: spliced.items.map((i) => i.value),
      items: spliced.items,
      origin: present[present.length - 1]!.origin,
      shadowed: spliced.shadowed,
    };
  }
  const present = layers.filter((l): l is NonNullable<Layer> => l !== undefined);
  const top = present[present.length - 1]!;
  return {
    decl,
    value: top.items[0],
    origin: top.origin,
    shadowed: present
      .slice(0, -1)
      .reverse()
      .map((l) => ({ value: l.items[0], origin: l.origin })),
  };
}

// ── config files ────────────────────────────────────────────────────────────

function fileLayer(decl: SettingDecl, file: string, data: Record<string, unknown>, read: ReadSource, text?: string): Layer {
  const raw = readKey(decl.path, file, data);
  if (raw === undefined) return undefined;
  const keyPath = Object.hasOwn(data, decl.path) ? [decl.path] : decl.path.split(".");
  const where = `${at(file, text, keyPath)} key ${decl.path}`;
  const origin = `file:${file}`;
  if (!isListKind(decl.kind)) return { origin, items: [scalarFromJson(decl, raw, where)] };
  if (!Array.isArray(raw)) {
    // {"hooks": {"autonomy": …}} is the group of settings under hooks, not the hooks list
    if (isPlainObject(raw) && SETTINGS.some((s) => s.path.startsWith(decl.path + "."))) return undefined;
    if (decl.kind === "source" && typeof raw === "string") return { origin, items: [sourceItem(raw, dirname(file), where, read)] };
    throw new SettingsError(`${where}: expected a list (JSON array)${decl.kind === "source" ? " or one string" : ""}, got ${jsonType(raw)}`);
  }
  return {
    origin,
    items: raw.map((item, i) => {
      if (item === null) return null;
      if (decl.kind === "json") return jsonItem(item, `${where}[${i}]`);
      if (typeof item !== "string") throw new SettingsError(`${where}[${i}]: expected a string or null, got ${jsonType(item)}`);
      return decl.kind === "source" ? sourceItem(item, dirname(file), `${where}[${i}]`, read) : item;
    }),
  };
}

/**
 * A source line from a config file is named by its file and line (`file:/p/.mcpx.json:3`), so an error
 * the line throws, and `mcpx settings get`, say where to look. Only source lines: the other list
 * kinds (hooks, plugins) name their items by index and read the path back out of the origin.
 */
function withLineOrigins(decl: SettingDecl, file: SettingsInput["files"][number], layer: Layer): Layer {
  if (!layer || decl.kind !== "source" || file.text === undefined) return layer;
  const text = file.text;
  const keyPath: Array<string | number> = Object.hasOwn(file.data, decl.path) ? [decl.path] : decl.path.split(".");
  const one = !Array.isArray(readKey(decl.path, file.path, file.data));
  const itemOrigins = layer.items.map((_item, i) => {
    const at = locateKey(text, one ? keyPath : [...keyPath, i]);
    return at ? `${layer.origin}:${at.line}` : undefined;
  });
  return { ...layer, itemOrigins };
}

/** a setting may be written nested ({"script":{"before":…}}) or as a literal dotted key; both at once must agree */
function readKey(path: string, file: string, data: Record<string, unknown>): unknown {
  const dotted = Object.hasOwn(data, path) ? data[path] : undefined;
  let nested: unknown = data;
  for (const part of path.split(".")) {
    nested = nested && typeof nested === "object" && !Array.isArray(nested) ? (nested as Record<string, unknown>)[part] : undefined;
  }
  if (!path.includes(".")) return dotted;
  if (dotted !== undefined && nested !== undefined && JSON.stringify(dotted) !== JSON.stringify(nested)) {
    throw new SettingsError(`${file}: "${path}" is given twice, as a dotted key and nested, with different values: keep one`);
  }
  return dotted ?? nested;
}

const TOP_KEYS = new Set(["$schema", "mcpServers"]);

/** unknown keys are errors, never ignored: a typo'd phase name must not silently do nothing */
function checkKnownKeys(file: string, data: Record<string, unknown>, text?: string): void {
  const known = new Set(SETTINGS.map((s) => s.path));
  const groups = new Set(SETTINGS.filter((s) => s.path.includes(".")).map((s) => s.path.split(".")[0]!));
  for (const [key, value] of Object.entries(data)) {
    if (TOP_KEYS.has(key)) continue;
    if (known.has(key) && !(groups.has(key) && isPlainObject(value))) continue;
    if (groups.has(key) && !isPlainObject(value)) {
      const members = SETTINGS.filter((s) => s.path.startsWith(key + ".")).map((s) => s.path);
      throw new SettingsError(`${at(file, text, [key])}: "${key}" must be an object of settings (${members.join(", ")}), got ${jsonType(value)}`);
    }
    if (groups.has(key)) {
      for (const sub of Object.keys(value as Record<string, unknown>)) {
        if (!known.has(`${key}.${sub}`)) {
          const choices = SETTINGS.filter((s) => s.path.startsWith(key + ".")).map((s) => s.path);
          throw new SettingsError(
            `${at(file, text, [key, sub])}: unknown setting "${key}.${sub}": use one of ${choices.join(", ")}${suggest(`${key}.${sub}`, choices)}`,
          );
        }
      }
      continue;
    }
    const choices = [...new Set([...TOP_KEYS, ...groups, ...SETTINGS.filter((s) => !s.path.includes(".")).map((s) => s.path)])];
    throw new SettingsError(
      `${at(file, text, [key])}: unknown key "${key}": use one of ${choices.join(", ")} (or a dotted setting path)${suggest(key, [...known, ...choices])}`,
    );
  }
}

/** `file:line:column` of the key at `path`, as config errors name a place; the file alone without its text */
function at(file: string, text: string | undefined, path: string[]): string {
  const pos = text === undefined ? undefined : locateKey(text, path);
  return pos ? `${file}:${pos.line}:${pos.column}` : file;
}

// ── environment and flags ───────────────────────────────────────────────────

function envLayer(decl: SettingDecl, env: Record<string, string | undefined>, cwd: string, read: ReadSource): Layer {
  const name = envName(decl.path);
  const raw = env[name];
  // an empty variable is unset, as for MCPX_CONFIG: `MCPX_X= cmd` must not mean "the empty value"
  if (raw === undefined || raw === "") return undefined;
  const origin = `env:${name}`;
  if (!isListKind(decl.kind)) return { origin, items: [scalarFromText(decl, raw, name)] };
  if (decl.kind === "json") return { origin, items: raw === SPLICE_MARK ? [null] : jsonTextItems(raw, name) };
  // one item per line, so a variable can carry several lines and a "-" splice mark
  return { origin, items: raw.split("\n").map((line) => (line === SPLICE_MARK ? null : decl.kind === "source" ? sourceItem(line, cwd, name, read) : line)) };
}

function flagLayer(decl: SettingDecl, flags: readonly FlagValue[], cwd: string, read: ReadSource): Layer {
  const mine = flags.filter((f) => f.path === decl.path);
  if (mine.length === 0) return undefined;
  const spellings = [...new Set(mine.map((f) => f.spelling))];
  if (spellings.length > 1) {
    // two spellings that say the same thing are harmless; two that differ have no right answer
    const said = spellings.map((sp) => JSON.stringify(mine.filter((f) => f.spelling === sp).map((f) => f.value)));
    if (new Set(said).size > 1)
      throw new SettingsError(
        `${spellings.join(" and ")} are two spellings of ${decl.path} and they disagree: use one of them (repeat it to give several lines)`,
      );
    mine.splice(0, mine.length, ...mine.filter((f) => f.spelling === spellings[0]));
  }
  const origin = `flag:${mine[0]!.spelling}`;
  if (!isListKind(decl.kind)) {
    if (mine.length > 1) throw new SettingsError(`${origin.slice(5)} was given ${mine.length} times; ${decl.path} takes one value`);
    return { origin, items: [scalarFromText(decl, mine[0]!.value, mine[0]!.spelling)] };
  }
  const items: unknown[] = [];
  for (const f of mine) {
    if (f.value === SPLICE_MARK) items.push(null);
    else if (decl.kind === "json") items.push(...jsonTextItems(f.value, f.spelling));
    else items.push(decl.kind === "source" ? sourceItem(f.value, cwd, f.spelling, read) : f.value);
  }
  return { origin, items };
}

// ── values ──────────────────────────────────────────────────────────────────

/** "@path" names a file whose text is the source line; relative to the config file or the cwd */
function sourceItem(text: string, base: string, where: string, read: ReadSource): string {
  if (!text.startsWith("@")) return text;
  const file = resolvePath(base, text.slice(1));
  try {
    return read(file);
  } catch (err) {
    throw new SettingsError(`${where}: ${text} names a file that cannot be read (${file}: ${(err as NodeJS.ErrnoException).code ?? err})`);
  }
}

function jsonItem(item: unknown, where: string): unknown {
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    throw new SettingsError(`${where}: expected a JSON object or null, got ${jsonType(item)}`);
  }
  return item;
}

function jsonTextItems(text: string, where: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SettingsError(`${where}: not valid JSON (${(err as Error).message}): give an object, or an array of objects and nulls`);
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  return list.map((item, i) => (item === null ? null : jsonItem(item, `${where}[${i}]`)));
}

function scalarFromJson(decl: SettingDecl, raw: unknown, where: string): unknown {
  if (decl.kind === "int" && typeof raw === "number") return scalarFromText(decl, String(raw), where);
  if (decl.kind === "bool" && typeof raw === "boolean") return raw;
  if (typeof raw !== "string") throw new SettingsError(`${where}: expected ${expected(decl)}, got ${jsonType(raw)}`);
  return scalarFromText(decl, raw, where);
}

/** the strict text parser shared by variables, flags and JSON strings */
export function scalarFromText(decl: SettingDecl, raw: string, where: string): unknown {
  switch (decl.kind) {
    case "string":
      return raw;
    case "int":
      if (!/^-?\d+$/.test(raw.trim())) throw new SettingsError(`${where}: "${raw}" is not a whole number (${decl.path})`);
      return Number(raw.trim());
    case "bool": {
      const t = raw.trim().toLowerCase();
      if (["true", "1", "yes"].includes(t)) return true;
      if (["false", "0", "no"].includes(t)) return false;
      throw new SettingsError(`${where}: "${raw}" is not a boolean (${decl.path}): use true or false`);
    }
    case "duration": {
      const ms = parseDuration(raw);
      if (typeof ms === "string") throw new SettingsError(`${where}: ${ms} (${decl.path})`);
      return ms;
    }
    case "enum":
      if (!decl.values!.includes(raw)) {
        throw new SettingsError(`${where}: "${raw}" is not a valid ${decl.path}: use one of ${decl.values!.join(", ")}${suggest(raw, decl.values!)}`);
      }
      return raw;
    default:
      throw new SettingsError(`${where}: ${decl.path} is a list`);
  }
}

function expected(decl: SettingDecl): string {
  if (decl.kind === "enum") return `one of ${decl.values!.join(", ")}`;
  if (decl.kind === "duration") return "a duration string like 30s";
  return `a ${decl.kind}`;
}
