// What the CLI needs of a run's options without loading valibot: the output modes and the settings a
// run may carry. ExecOptions itself, the one description of a run shared by the CLI, /v1/exec and
// mcpx_exec, is the type of the valibot schema in options-schema.ts, which is built from these. Only
// the doors that take a run from outside load that schema: the CLI resolves config, flags and source
// files on its own side and fills ExecOptions in, so every door runs the same launcher with the same
// phases, and the CLI's start does not pay for building a schema it never checks against.

import { parseDuration } from "../settings/duration.ts";
import { SETTINGS } from "../settings/registry.ts";
import type { SettingDecl } from "../settings/setting-decl.ts";

/**
 * How a door answers: text (the script's stdout), json (one envelope), stream (the frames as NDJSON).
 * The CLI renders it (--output, --json); /v1/exec answers in it (absent: by the Accept header);
 * mcpx_exec puts it in its text content (the envelope is always the structuredContent).
 */
export const OUTPUT_MODES = ["text", "json", "stream"] as const;

/** how a run's artifacts reach the caller (ExecOptions.delivery): at their uri, or also as artifact.chunk frames after end */
export const DELIVERY_MODES = ["uri", "stream"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/**
 * The settings one run may carry (the registry's `remote: "run"` rows), written as in a config file:
 * `{"hooks.autonomy": "advise", "mcp.callTimeout": "5s"}`. Where the run executes, the stricter of
 * each value and that process's own applies (lib/hooks/policy.ts): a caller may tighten, never loosen.
 */
export const RUN_SETTINGS: readonly SettingDecl[] = SETTINGS.filter((s) => s.remote === "run");

/** a run's settings as the values the policy holds: durations in milliseconds */
export function runSettingValues(settings: Record<string, unknown>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const decl of RUN_SETTINGS) {
    const value = settings[decl.path];
    if (value === undefined) continue;
    out[decl.path] = decl.kind === "duration" ? (parseDuration(String(value)) as number) : (value as string | number);
  }
  return out;
}
