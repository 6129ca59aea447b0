// One row per setting, the shape `mcpx settings` prints and /v1/settings serves: one rule for
// secrets on both, from the registry's `secret` flag.

import { envName, flagSpellings } from "./setting-names.ts";
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

/** what a secret setting shows instead of its value, on every surface (mcpx settings, /v1/settings) */
const REDACTED = "(set; not shown)";

const hide = (v: unknown) => (v === "" || v === undefined ? v : REDACTED);

/** one row; a secret's value (and what it shadowed) says only whether it is set */
export function settingRow(s: ResolvedSetting): SettingRow {
  const secret = s.decl.secret === true;
  return {
    path: s.decl.path,
    kind: s.decl.kind,
    description: s.decl.description,
    env: envName(s.decl.path),
    flags: flagSpellings(s.decl).map((f) => `--${f}`),
    values: s.decl.values,
    default: s.decl.default,
    value: secret ? hide(s.value) : s.value,
    origin: s.origin,
    items: s.items,
    shadowed: secret ? s.shadowed.map((x) => ({ ...x, value: hide(x.value) })) : s.shadowed,
  };
}
