// ExecOptions: the one description of a run, shared by the CLI, /v1/exec and mcpx_exec. The CLI
// resolves config, flags and source files on its own side and fills this in, so every door runs the
// same launcher with the same phases.

import * as v from "valibot";
import { SCRIPT_PHASES } from "../settings/registry.ts";

const Lines = v.array(v.string());

export const ScriptPhasesSchema = v.strictObject({
  before: v.optional(Lines, []),
  prefix: v.optional(Lines, []),
  onSuccess: v.optional(Lines, []),
  onError: v.optional(Lines, []),
  suffix: v.optional(Lines, []),
});

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
    runtime: v.optional(v.picklist(["auto", "bun", "deno", "node"]), "auto"),
    /** milliseconds; 0 = no limit */
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
    env: v.optional(v.record(v.string(), v.string()), {}),
    /** text written to the script's stdin; absent = the caller's stdin (CLI) or empty */
    stdin: v.optional(v.string()),
    cwd: v.optional(v.string()),
  }),
  v.check((o) => (o.source === undefined) !== (o.file === undefined), "give exactly one of source or file"),
);

export type ExecOptions = v.InferOutput<typeof ExecOptionsSchema>;
export type ExecInput = v.InferInput<typeof ExecOptionsSchema>;

export function emptyPhases(): Record<(typeof SCRIPT_PHASES)[number], string[]> {
  return { before: [], prefix: [], onSuccess: [], onError: [], suffix: [] };
}
