// The valibot schema of ExecOptions (options.ts), for the doors that take a run from outside:
// /v1/exec, mcpx_exec and the defaults a server fills in. The CLI builds ExecOptions itself and
// never loads this.

import * as v from "valibot";
import { DURATION_PATTERN, parseDuration } from "../settings/duration.ts";
import { RUNTIMES } from "../settings/choices.ts";
import type { SettingDecl } from "../settings/setting-decl.ts";
import { DELIVERY_MODES, OUTPUT_MODES, RUN_SETTINGS } from "./options.ts";
import { SANDBOX_MODES } from "./door-policy.ts";

const Lines = v.array(v.string());

const ScriptPhasesSchema = v.strictObject({
  before: v.optional(Lines, []),
  prefix: v.optional(Lines, []),
  onSuccess: v.optional(Lines, []),
  onError: v.optional(Lines, []),
  suffix: v.optional(Lines, []),
});

function runSettingSchema(decl: SettingDecl) {
  const what = `settings["${decl.path}"]`;
  switch (decl.kind) {
    case "enum":
      return v.picklist(decl.values as string[], `${what} must be one of ${decl.values!.join(", ")}`);
    case "int":
      return v.pipe(v.number(`${what} must be a whole number`), v.integer(`${what} must be a whole number`), v.minValue(0, `${what} must be 0 or more`));
    case "duration":
      return v.pipe(v.string(`${what} must be a duration string`), v.regex(DURATION_PATTERN, `${what} must be a duration like "500ms", "30s", "1m" or "0"`));
    default:
      throw new Error(`${decl.path}: a ${decl.kind} setting cannot be carried by a run (lib/exec/options-schema.ts)`);
  }
}

export const RunSettingsSchema = v.strictObject(Object.fromEntries(RUN_SETTINGS.map((d) => [d.path, v.optional(runSettingSchema(d))])));

export const ExecOptionsSchema = v.pipe(
  v.strictObject({
    /** inline TypeScript (exec), written to a file and imported like a file script */
    source: v.optional(v.string()),
    /** a script file's path (local runs) */
    file: v.optional(v.string()),
    /** the name scripts see as script.name */
    name: v.optional(v.string()),
    args: v.optional(v.array(v.string()), []),
    export: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_$][\w$]*$/, "export must be an identifier"))),
    script: v.optional(ScriptPhasesSchema, {}),
    /** script-point hooks for this run; their schema arrives with the hook gate */
    hooks: v.optional(v.array(v.record(v.string(), v.unknown())), []),
    runtime: v.optional(v.picklist(RUNTIMES), "auto"),
    /** exec.sandbox for this run; absent = the executing process's own. It may tighten that, never loosen it (door-policy.ts) */
    sandbox: v.optional(v.picklist(SANDBOX_MODES)),
    /** milliseconds; 0 = no limit */
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    /** the same limit as a duration, as exec.timeout is written ("30s", "500ms", "1m", 0); give one of the two.
     * Checked by a pattern, not parsed here, so that the MCP input schema shows the pattern */
    timeout: v.optional(
      v.pipe(v.string(), v.regex(DURATION_PATTERN, 'timeout must be a duration like "500ms", "30s", "1m" or "0" (or give timeoutMs in milliseconds)')),
    ),
    env: v.optional(v.record(v.string(), v.string()), {}),
    /** text written to the script's stdin; absent = the caller's stdin (CLI) or empty */
    stdin: v.optional(v.string()),
    cwd: v.optional(v.string()),
    output: v.optional(v.picklist(OUTPUT_MODES)),
    /** how the run's artifacts reach the caller: "uri" (default) each at its frame's uri, "stream" also their bytes after end */
    delivery: v.optional(v.picklist(DELIVERY_MODES)),
    /** the caller's own limits for this run (RUN_SETTINGS); absent = the executing process's */
    settings: v.optional(RunSettingsSchema, {}),
  }),
  v.check((o) => (o.source === undefined) !== (o.file === undefined), "give exactly one of source or file"),
  v.check(
    (o) => o.timeout === undefined || o.timeoutMs === undefined || parseDuration(o.timeout) === o.timeoutMs,
    "timeout and timeoutMs disagree: give one of them",
  ),
  // one spelling from here on: timeoutMs
  v.transform(({ timeout, ...o }) => ({ ...o, timeoutMs: o.timeoutMs ?? (timeout === undefined ? 0 : (parseDuration(timeout) as number)) })),
);

export type ExecOptions = v.InferOutput<typeof ExecOptionsSchema>;
