// One row per setting, the shape `mcpx settings --json` prints and /v1/settings will serve.

import { envName, flagSpellings } from "./registry.ts";
import type { ResolvedSetting, Sourced } from "./resolve.ts";

export interface SettingRow {
  path: string;
  kind: string;
  description: string;
  env: string;
  flags: string[];
  values?: readonly string[];
  default: unknown;
  value: unknown;
  origin: string;
  items?: Sourced[];
  shadowed: Sourced[];
}

export function settingRow(s: ResolvedSetting): SettingRow {
  return {
    path: s.decl.path,
    kind: s.decl.kind,
    description: s.decl.description,
    env: envName(s.decl.path),
    flags: flagSpellings(s.decl).map((f) => `--${f}`),
    values: s.decl.values,
    default: s.decl.default,
    value: s.value,
    origin: s.origin,
    items: s.items,
    shadowed: s.shadowed,
  };
}
