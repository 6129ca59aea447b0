// What the settings table (lib/settings/registry.ts) is looked up by: a setting's declaration by its
// path, its MCPX_* variable and flag names, the secret settings' variables, the settings a command takes.

import { SETTINGS } from "./registry.ts";
import { EVERY, type CommandName, type SettingDecl } from "./setting-decl.ts";

const BY_PATH = new Map(SETTINGS.map((s) => [s.path, s]));

/** a setting's declaration by its path */
export function declOf(path: string): SettingDecl | undefined {
  return BY_PATH.get(path);
}

/** script.onError → MCPX_SCRIPT_ON_ERROR, unless the declaration names its own variable */
export function envName(path: string): string {
  return (
    BY_PATH.get(path)?.env ??
    "MCPX_" +
      path
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .replace(/\./g, "_")
        .toUpperCase()
  );
}

/** the variables of secret settings: never inherited by a script (execute.ts) */
export const SECRET_ENV_NAMES: readonly string[] = SETTINGS.filter((s) => s.secret).map((s) => envName(s.path));

/** script.onError → script-on-error (the long flag, without dashes) */
export function flagName(path: string): string {
  return path
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/\./g, "-")
    .toLowerCase();
}

/** every flag spelling of a setting, long form first */
export function flagSpellings(decl: SettingDecl): string[] {
  return [flagName(decl.path), ...(decl.aliases ?? [])];
}

/** `mcpx settings` takes every setting's flags, so it can show what a flag would do to a value */
export function settingsFor(command: CommandName): SettingDecl[] {
  return command === "settings" ? [...SETTINGS] : SETTINGS.filter((s) => (s.commands ?? EVERY).includes(command));
}
