// The gate's policy: the settings that bound what hooks may do and how long a hook or a call may
// take. One table maps each setting to its policy field, so a run's own settings (ExecOptions.settings,
// carried by --remote, /v1/exec and mcpx_exec) land on exactly the fields the process's settings fill.

import type { SettingGetter } from "../settings/registry.ts";
import type { HookServers } from "./allowlist.ts";
import { levelRank, type Level } from "./points.ts";

export interface GatePolicy {
  autonomy: Level;
  max: Level;
  retryBudget: number;
  defaultTimeoutMs: number;
  mcpTimeoutMs: number;
  /** how long one upstream tools/call may take (mcp.callTimeout) */
  callTimeoutMs: number;
  hookServers: HookServers;
}

/** setting path → policy field; the registry's `remote: "run"` settings must all be here (a unit test checks) */
export const POLICY_SETTINGS = {
  "hooks.autonomy": "autonomy",
  "autonomy.max": "max",
  "hooks.retryBudget": "retryBudget",
  "hooks.timeout": "defaultTimeoutMs",
  "hooks.mcpTimeout": "mcpTimeoutMs",
  "mcp.callTimeout": "callTimeoutMs",
} as const satisfies Record<string, Exclude<keyof GatePolicy, "hookServers">>;

export type PolicySetting = keyof typeof POLICY_SETTINGS;

/** the policy from a process's resolved settings */
export function policyFromSettings(get: SettingGetter, hookServers: HookServers): GatePolicy {
  const policy = { hookServers } as GatePolicy;
  for (const path of Object.keys(POLICY_SETTINGS) as PolicySetting[]) (policy as unknown as Record<string, unknown>)[POLICY_SETTINGS[path]] = get(path);
  return policy;
}

/**
 * A run's own values over the process's: the stricter of the two wins, so a caller can tighten what
 * happens for its run (a lower autonomy, fewer retries, shorter timeouts) and never loosen what the
 * daemon allows. A timeout of 0 means none, the loosest.
 */
export function stricterPolicy(base: GatePolicy, run: Partial<Record<PolicySetting, Level | number>>): GatePolicy {
  const out = { ...base } as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(run) as Array<[PolicySetting, Level | number | undefined]>) {
    if (value === undefined) continue;
    const field = POLICY_SETTINGS[path];
    const current = out[field] as Level | number;
    out[field] =
      typeof value === "string"
        ? levelRank(value) < levelRank(current as Level)
          ? value
          : current
        : stricterNumber(current as number, value, field !== "retryBudget");
  }
  return out as unknown as GatePolicy;
}

function stricterNumber(a: number, b: number, zeroIsNone: boolean): number {
  return zeroIsNone ? stricterLimit(a, b) : Math.min(a, b);
}

/** the stricter of two limits where 0 is none (a timeout, a heap size): the run's and a door's meet here too (lib/exec/door-policy.ts runLimits) */
export function stricterLimit(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}
