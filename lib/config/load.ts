// Reading the config chain: find the files, parse each strictly, validate and expand its
// mcpServers, and hand every other top-level key to the settings layer untouched. A broken server
// entry does not stop the load: it is kept in `broken` (docs/decisions/0009).

import { readFileSync } from "node:fs";
import { ConfigError } from "./errors.ts";
import { type Env, type FindOptions, explicitFile, findConfigFiles } from "./find.ts";
import { locateKey, parseJsonc } from "./jsonc.ts";
import { type BrokenServer, type ParsedServers, type ServerConfig, mergeServers, parseServers } from "./servers.ts";

export interface ConfigFile {
  path: string;
  /** the file's text, so the settings layer can put a line on its errors with locateKey */
  text: string;
  /** every top-level key except mcpServers, exactly as parsed (nested or literally dotted keys alike) */
  data: Record<string, unknown>;
}

export interface LoadedConfig {
  /** lowest precedence first: user file, farthest project file … nearest */
  files: ConfigFile[];
  servers: Record<string, ServerConfig>;
  /** entries that cannot be used, by name: the error only for what uses them */
  broken: Record<string, BrokenServer>;
}

/** Finds and reads every config file that applies; throws ConfigError on the first problem. */
export function loadConfig(opts: FindOptions): LoadedConfig {
  const paths = findConfigFiles(opts);
  const mustExist = explicitFile(opts) !== undefined;
  const files: ConfigFile[] = [];
  const perFile: ParsedServers[] = [];
  for (const path of paths) {
    const text = readText(path, mustExist);
    if (text === undefined) continue;
    opts.onRead?.(path, text);
    const parsed = parseConfigText(path, text, opts.env);
    files.push(parsed.file);
    perFile.push(parsed);
  }
  return { files, ...mergeServers(perFile) };
}

/** The pure core of loadConfig for one file: parse, split off mcpServers, validate and expand it. */
export function parseConfigText(
  path: string,
  text: string,
  env: Env,
): { file: ConfigFile; servers: Record<string, ServerConfig>; broken: Record<string, BrokenServer> } {
  const value = parseJsonc(text, path);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError({
      file: path,
      ...locateKey(text, []),
      detail: 'a config file must hold one JSON object, e.g. {"mcpServers": {}}',
    });
  }
  const { mcpServers, ...data } = value as Record<string, unknown>;
  const parsed: ParsedServers =
    mcpServers === undefined ? { servers: {}, broken: {} } : parseServers(mcpServers, { file: path, env, locate: (key) => locateKey(text, key) });
  return { file: { path, text, data }, ...parsed };
}

// A file can vanish between finding and reading (an editor's atomic save); that is the same as
// not being there, except for the one file the user named explicitly.
function readText(path: string, mustExist: boolean): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !mustExist) return undefined;
    throw new ConfigError({ file: path, detail: `cannot be read (${code ?? String(err)}): check the path and its permissions` });
  }
}
