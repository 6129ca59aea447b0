// What every command starts from: the config chain, the resolved settings, and (when asked for) the
// upstream pool. Errors here are usage or config errors: the command exits 2 before anything runs.

import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { cacheDir, runtimeDir } from "../paths/dirs.ts";
import type { LogFormat, Level } from "./log-line.ts";
import { formatLogLine, LEVEL_ORDER } from "./log-line.ts";
import { err } from "../util/fd-write.ts";
import { SCRIPT_PHASES, type ScriptPhase } from "../settings/registry.ts";
import type { ParsedArgs } from "../settings/flags.ts";
import { resolveSettings, type FlagValue, type ResolvedSettings } from "../settings/resolve.ts";

export interface SessionInput {
  cwd: string;
  env: Record<string, string | undefined>;
  /** --config FILE */
  configFlag?: string;
  flags: readonly FlagValue[];
}

export interface Session {
  cwd: string;
  env: Record<string, string | undefined>;
  config: LoadedConfig;
  settings: ResolvedSettings;
  get<T = unknown>(path: string): T;
  phases(): Record<ScriptPhase, string[]>;
  cacheDir: string;
  sockDir: string;
  /** a log line on stderr, in logging.format, if at or above logging.level */
  log(level: Level, message: string, source?: string): void;
}

export function openSession(input: SessionInput): Session {
  const config = loadConfig({ cwd: input.cwd, env: input.env, explicit: input.configFlag });
  const settings = resolveSettings({ files: config.files, env: input.env, flags: input.flags, cwd: input.cwd });
  const get = <T>(path: string): T => {
    const s = settings.get(path);
    if (!s) throw new Error(`internal: no setting ${path}`);
    return s.value as T;
  };
  const log = (level: Level, message: string, source = "mcpx") => {
    if (LEVEL_ORDER[level] >= LEVEL_ORDER[get<Level | "silent">("logging.level")]) {
      err(formatLogLine({ level, message, source }, get<LogFormat>("logging.format")) + "\n");
    }
  };
  return {
    cwd: input.cwd,
    env: input.env,
    config,
    settings,
    get,
    phases: () => Object.fromEntries(SCRIPT_PHASES.map((p) => [p, get<string[]>(`script.${p}`)])) as Record<ScriptPhase, string[]>,
    cacheDir: cacheDir(input.env),
    sockDir: runtimeDir(input.env),
    log,
  };
}

/** the session of a command started from the shell: this process's directory and environment, its --config and setting flags */
export function sessionFromArgs(parsed: Pick<ParsedArgs, "own" | "settings">): Session {
  return openSession({ cwd: process.cwd(), env: process.env, configFlag: parsed.own.config as string | undefined, flags: parsed.settings });
}
