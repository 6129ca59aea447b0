// Reading the server lists other tools keep (config.imports; docs/decisions/0009). Forgiving: these
// files belong to other tools, so a file that does not parse is a warning naming it, and an entry mcpx
// cannot use is a broken server (reported, the error only where it is used), never a failed command.

import { readFileSync, statSync } from "node:fs";
import type { JSONPath } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { ConfigError } from "./errors.ts";
import type { Env } from "./find.ts";
import { filterKeysOf, IMPORT_KINDS, type ImportKind, type ImportSource, importSources, locateTomlTable, mapEntry, serverMap } from "./import-kinds.ts";
import { formatKeyPath, locateKey, parseJsonc } from "./jsonc.ts";
import { type BrokenServer, type ParsedServers, type ServerConfig, parseServerEntry } from "./servers.ts";
import { isPlainObject } from "../util/json-type.ts";

export { IMPORT_KINDS, type ImportKind };

/** the one spelling of "no imports" where a list cannot be empty (a variable, a flag) */
const NO_IMPORTS = "none";

/** what one kind brings: its servers, broken entries, and what was left out and why */
export interface KindImport extends ParsedServers {
  kind: ImportKind;
  /** the files that were there and read, in precedence order */
  files: string[];
  /** those of `files` that are a project's, not at the tool's fixed place for the user: used once trusted (docs/decisions/0015) */
  projectFiles: string[];
  /** entries switched off in their own tool (enabled: false, disabled: true): `name (file)` */
  disabled: string[];
  /** keys mcpx has no use for, dropped per entry: `name: key, key` */
  ignored: string[];
  /** the same name again in a later source of this kind, which lost: `name (file)` */
  shadowed: string[];
  /** each mapped entry as an mcpServers entry, variables unexpanded (what `mcpx config import KIND` writes) */
  entries: Record<string, Record<string, unknown>>;
  /** the file each entry came from */
  origins: Record<string, string>;
}

export interface ImportResult {
  kinds: KindImport[];
  /** files that exist but do not parse (or cannot be read): one line each, for the warning */
  warnings: string[];
}

/**
 * Which kinds config.imports asks for, strictly: each item a kind name; "none" alone means none
 * (a variable or flag cannot be an empty list). Throws ConfigError naming the accepted kinds.
 */
export function parseImportKinds(items: readonly string[], origin: string): ImportKind[] {
  if (items.length === 1 && items[0] === NO_IMPORTS) return [];
  const out: ImportKind[] = [];
  for (const item of items) {
    if (!(IMPORT_KINDS as readonly string[]).includes(item)) {
      throw new ConfigError({
        file: origin,
        key: "config.imports",
        detail: `unknown import kind ${JSON.stringify(item)}: use one of ${IMPORT_KINDS.join(", ")} (or [] / "${NO_IMPORTS}" for none)`,
      });
    }
    if (!out.includes(item as ImportKind)) out.push(item as ImportKind);
  }
  // precedence is the documented order, whatever order the list is written in
  return IMPORT_KINDS.filter((k) => out.includes(k));
}

/** reads every source of the given kinds; `isFile`/`read` are the only I/O, replaceable in tests */
export function loadImports(
  kinds: readonly ImportKind[],
  ctx: { cwd: string; env: Env; platform?: NodeJS.Platform; onProbe?: (path: string) => void; onRead?: (path: string, text: string) => void },
  io = { isFile, read },
): ImportResult {
  const warnings: string[] = [];
  const readText = (path: string) => {
    const text = io.read(path);
    ctx.onRead?.(path, text);
    return text;
  };
  const parsedFiles = new Map<string, { text: string; doc: unknown } | undefined>();
  const kindsOut: KindImport[] = [];
  for (const kind of kinds) {
    const got: KindImport = { kind, files: [], projectFiles: [], servers: {}, broken: {}, disabled: [], ignored: [], shadowed: [], entries: {}, origins: {} };
    const sources = importSources(kind, { cwd: ctx.cwd, env: ctx.env, platform: ctx.platform ?? process.platform });
    // ~/.cursor/mcp.json is also a project file of HOME when cwd is under it: the user's place wins
    const userPaths = new Set(sources.filter((s) => s.user).map((s) => s.path));
    for (const source of sources) {
      ctx.onProbe?.(source.path);
      if (!io.isFile(source.path)) continue;
      if (!parsedFiles.has(source.path)) parsedFiles.set(source.path, parseFile(source, readText, warnings));
      const file = parsedFiles.get(source.path);
      if (!file) continue;
      const found = serverMap(source, file.doc);
      if (!found) continue;
      if (!got.files.includes(source.path)) {
        got.files.push(source.path);
        if (!userPaths.has(source.path)) got.projectFiles.push(source.path);
      }
      readSource(source, found, file.text, ctx.env, got);
    }
    kindsOut.push(got);
  }
  return { kinds: kindsOut, warnings };
}

function readSource(source: ImportSource, found: { root: JSONPath; map: unknown }, text: string, env: Env, got: KindImport): void {
  const locate = (path: JSONPath) =>
    source.format === "toml" ? locateTomlTable(text, found.root, String(path[found.root.length] ?? "")) : locateKey(text, path);
  if (!isPlainObject(found.map)) {
    got.broken[`(${formatKeyPath(found.root)})`] = {
      name: formatKeyPath(found.root),
      origin: source.path,
      imported: source.kind,
      error: new ConfigError({
        file: source.path,
        ...locate(found.root),
        key: formatKeyPath(found.root),
        detail: "is not an object of server entries, so none of them can be imported",
      }),
    };
    return;
  }
  for (const [name, raw] of Object.entries(found.map)) {
    if (name in got.servers || name in got.broken) {
      got.shadowed.push(`${name} (${source.path})`);
      continue;
    }
    const base = [...found.root, name];
    const mapped = mapEntry(source, raw, env);
    if ("disabled" in mapped) {
      got.disabled.push(`${name} (${source.path})`);
      continue;
    }
    if ("problem" in mapped) {
      const key = [...base, ...(mapped.key ?? [])];
      got.broken[name] = {
        name,
        origin: source.path,
        imported: source.kind,
        error: new ConfigError({ file: source.path, ...(locate(key) ?? locate(base)), key: formatKeyPath(key), detail: mapped.problem }),
      };
      continue;
    }
    if (mapped.ignored.length) got.ignored.push(`${name}: ${mapped.ignored.join(", ")}`);
    got.entries[name] = mapped.entry;
    got.origins[name] = source.path;
    const one = parseServerEntry(name, mapped.entry, { file: source.path, env, locate, imported: source.kind, filterKeys: filterKeysOf(source.kind) }, base);
    if ("error" in one) got.broken[name] = one as BrokenServer;
    else got.servers[name] = one as ServerConfig;
  }
}

function parseFile(source: ImportSource, readText: (p: string) => string, warnings: string[]): { text: string; doc: unknown } | undefined {
  let text: string;
  try {
    text = readText(source.path);
  } catch (err) {
    warnings.push(`${source.path} (${source.kind}) cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): its servers are not imported`);
    return undefined;
  }
  try {
    if (source.format === "toml") return { text, doc: parseToml(text) };
    return { text, doc: parseJsonc(text, source.path) };
  } catch (err) {
    const why = err instanceof ConfigError ? err.message : `${source.path}: ${(err as Error).message.split("\n")[0]}`;
    warnings.push(
      `${why} — this ${source.kind} file does not parse, so its servers are not imported (fix ` +
        `it in ${source.kind}, or leave ${source.kind} out of config.imports)`,
    );
    return undefined;
  }
}

/**
 * mcpx's own servers first, then each kind in order: a name already taken (by mcpx's config or an
 * earlier kind) is not imported again. Returns the merged servers and broken entries.
 */
export function mergeImports(own: ParsedServers, imports: ImportResult): ParsedServers & { clashes: string[] } {
  const servers = { ...own.servers };
  const broken = { ...own.broken };
  const clashes: string[] = [];
  for (const k of imports.kinds) {
    for (const [name, s] of [...Object.entries(k.servers), ...Object.entries(k.broken)] as Array<[string, ServerConfig | BrokenServer]>) {
      const taken = servers[name] ?? broken[name];
      if (taken) {
        clashes.push(`${name} from ${k.kind} (${s.origin}) is shadowed by ${taken.imported ?? "mcpx config"} (${taken.origin})`);
        continue;
      }
      if ("error" in s) broken[name] = s;
      else servers[name] = s;
    }
  }
  return { servers, broken, clashes };
}

function isFile(path: string): boolean {
  try {
    // no exception for a missing file, the common case: building a thrown one costs more than the stat
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

function read(path: string): string {
  return readFileSync(path, "utf8");
}
