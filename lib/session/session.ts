// What every command starts from: the config chain, the resolved settings, and (when asked for) the
// upstream pool. Errors here are usage or config errors: the command exits 2 before anything runs.
// A session resolved before from exactly the same inputs comes from its note (session-note.ts).

import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { explicitFile, userConfigFile } from "../config/find.ts";
import { importSources } from "../config/import-kinds.ts";
import { loadImports, mergeImports, parseImportKinds, type ImportKind, type ImportResult } from "../config/imports.ts";
import { brokenWarning } from "../config/servers.ts";
import { cacheDir, homeNote, runtimeDir } from "../paths/dirs.ts";
import { fileSignature, type FileSignature } from "../paths/file-signature.ts";
import type { Level } from "./log-line.ts";
import { formatLogLine, LEVEL_ORDER } from "./log-line.ts";
import { err } from "../util/fd-write.ts";
import { SCRIPT_PHASES, type ScriptPhase, type SettingGetter, type SettingValue } from "../settings/registry.ts";
import type { ParsedArgs } from "../settings/flags.ts";
import { resolveSettings, type FlagValue, type ResolvedSettings } from "../settings/resolve.ts";
import { recallSession, rememberSession, sessionNotePath, textHeld, type ResolvedSession } from "./session-note.ts";
import { isTrusted, trustWarnings, withholdServers, withholdSettings, type TrustState } from "../trust/project-trust.ts";
import { contentHash } from "../trust/trust-store.ts";

export interface SessionInput {
  cwd: string;
  env: Record<string, string | undefined>;
  /** --config FILE */
  configFlag?: string;
  flags: readonly FlagValue[];
  /** false: no warning about untrusted files (`mcpx trust`, which is what the warning asks for) */
  trustWarnings?: false;
}

export interface Session {
  cwd: string;
  env: Record<string, string | undefined>;
  /** mcpx's own files, with the servers of config.imports merged in (servers, broken) */
  config: LoadedConfig;
  /** what each kind in config.imports brought (mcpx config import, mcpx settings get config.imports) */
  imports: ImportResult;
  settings: ResolvedSettings;
  /** the project files in force, whether each is trusted, and what untrusted ones set that is not used (docs/decisions/0015) */
  trust: TrustState;
  /** one resolved setting, typed by the registry: a misspelt path does not compile */
  get: SettingGetter;
  phases(): Record<ScriptPhase, string[]>;
  cacheDir: string;
  sockDir: string;
  /**
   * every path config resolution looked at (config files, the project files of each directory up
   * from cwd, the imported tools' files, files named by a source line's @path), found or not, with
   * what it held then: what the session was resolved from (lib/mcp/early-server.ts remembers a
   * server's start by it)
   */
  consulted: ReadonlyMap<string, FileSignature>;
  /** a log line on stderr, in logging.format, if at or above logging.level */
  log(level: Level, message: string, source?: string): void;
  /** what the command line said: a daemon started for this command is started with the same (lib/daemon/lifecycle.ts) */
  input: Pick<SessionInput, "configFlag" | "flags">;
}

export function openSession(input: SessionInput): Session {
  const notePath = sessionNotePath(input);
  const { config, imports, settings, consulted, trust } = recallSession(input, notePath) ?? resolveSession(input, notePath);
  const get: SettingGetter = (path) => {
    const s = settings.get(path);
    if (!s) throw new Error(`internal: no setting ${path}`);
    return s.value as SettingValue<typeof path>;
  };
  const log = (level: Level, message: string, source = "mcpx") => {
    if (LEVEL_ORDER[level] >= LEVEL_ORDER[get("logging.level")]) {
      err(formatLogLine({ level, message, source }, get("logging.format")) + "\n");
    }
  };
  const note = homeNote(input.env);
  if (note) log("info", note);
  for (const w of imports.warnings) log("warn", w);
  if (input.trustWarnings !== false) for (const w of trustWarnings(trust)) log("warn", w);
  // once per command, here where every command starts: the entries it cannot use, each with its fix
  const warning = brokenWarning(config.broken);
  if (warning) log("warn", warning);
  return {
    cwd: input.cwd,
    env: input.env,
    config,
    imports,
    settings,
    trust,
    get,
    phases: () => Object.fromEntries(SCRIPT_PHASES.map((p) => [p, get(`script.${p}` as const)])) as Record<ScriptPhase, string[]>,
    cacheDir: cacheDir(input.env),
    sockDir: runtimeDir(input.env),
    consulted,
    log,
    input: { configFlag: input.configFlag, flags: input.flags },
  };
}

/** finds, reads and resolves everything the session is made of, and remembers it for the next command (in the note at notePath) */
function resolveSession(input: SessionInput, notePath: string): ResolvedSession {
  const consulted = new Map<string, FileSignature>();
  const held = new Map<string, string>();
  const texts = new Map<string, string>();
  const onProbe = (path: string) => consulted.set(path, fileSignature(path));
  const onRead = (path: string, text: string) => {
    held.set(path, textHeld(text));
    texts.set(path, text);
    // a file named by a source line's @path is looked at only by reading it
    if (!consulted.has(path)) onProbe(path);
  };
  const findOpts = { cwd: input.cwd, env: input.env, explicit: input.configFlag };
  const config = loadConfig({ ...findOpts, onProbe, onRead });
  // the user's own file and the one --config / MCPX_CONFIG names are trusted; every other one is a project's
  const named = explicitFile(findOpts) !== undefined;
  const user = userConfigFile(input.env);
  const trusted = (path: string, text: string) => isTrusted(input.env, path, contentHash(text), onProbe);
  const own = withholdSettings(
    config.files,
    (path) => !named && path !== user,
    (f) => trusted(f.path, f.text),
  );
  const settings = resolveSettings({ files: own.files, env: input.env, flags: input.flags, cwd: input.cwd, onRead });
  const imports = readImports(config, settings, input, onProbe, onRead);
  const trust = own.state;
  for (const path of new Set(imports.kinds.flatMap((k) => k.projectFiles))) trust.files.push({ path, trusted: trusted(path, texts.get(path) ?? "") });
  const rootOf = (kind: string, file: string) =>
    importSources(kind as ImportKind, { cwd: input.cwd, env: input.env, platform: process.platform }).find((s) => s.path === file)?.root ?? ["mcpServers"];
  const untrusted = new Set(trust.files.filter((f) => !f.trusted).map((f) => f.path));
  withholdServers(config, imports, untrusted, rootOf, trust);
  const resolved = { config, imports, settings, consulted, trust };
  rememberSession(input, resolved, held, notePath);
  return resolved;
}

/** reads config.imports' kinds and merges their servers under mcpx's own (which win a clash) */
function readImports(
  config: LoadedConfig,
  settings: ResolvedSettings,
  input: SessionInput,
  onProbe: (path: string) => void,
  onRead: (path: string, text: string) => void,
): ImportResult {
  const s = settings.get("config.imports")!;
  const kinds = parseImportKinds(s.value as string[], s.origin.replace(/^(file|env|flag):/, ""));
  const imports = loadImports(kinds, { cwd: input.cwd, env: input.env, onProbe, onRead });
  const merged = mergeImports({ servers: config.servers, broken: config.broken }, imports);
  config.servers = merged.servers;
  config.broken = merged.broken;
  return imports;
}

/** the session of a command started from the shell: this process's directory and environment, its --config and setting flags */
export function sessionFromArgs(parsed: Pick<ParsedArgs, "own" | "settings">): Session {
  return openSession({ cwd: process.cwd(), env: process.env, configFlag: parsed.own.config as string | undefined, flags: parsed.settings });
}
