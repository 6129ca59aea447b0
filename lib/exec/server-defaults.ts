// ExecOptions from a caller that is not the CLI (/v1/exec, mcpx_exec): what the request leaves out
// comes from the serving process's own settings, as it would for `mcpx exec` in that directory. The
// CLI's --remote always sends every phase, the runtime and the timeout, so for it nothing is filled.
// (`timeout` and `timeoutMs` are one knob in two spellings: either one given counts as given.)

import * as v from "valibot";
import type { Session } from "../session/session.ts";
import { SCRIPT_PHASES } from "../settings/registry.ts";
import { ExecOptionsSchema, type ExecOptions } from "./options-schema.ts";
import { spliceLayers } from "../config/null-splice.ts";
import { isPlainObject } from "../util/json-type.ts";
import { requestPhaseOrigins, settingsPhaseOrigins, type PhaseOrigins } from "./phase-origins.ts";

/**
 * What the caller left out comes from the server's own settings, as it would for `mcpx exec` in the
 * server's directory: the script.* phases one phase at a time (a phase given replaces the server's
 * lines for it, like a flag does), script.runtime and exec.timeout. A knob configured for runs must
 * not be dropped on this door.
 */
export function withServerDefaults(raw: Record<string, unknown>, given: ExecOptions, session: Pick<Session, "phases" | "get">): ExecOptions {
  const configured = session.phases();
  const script = Object.fromEntries(SCRIPT_PHASES.map((p) => [p, callerGave(raw, p) ? given.script[p] : configured[p]]));
  return v.parse(ExecOptionsSchema, {
    ...given,
    script,
    runtime: raw.runtime === undefined ? session.get("script.runtime") : given.runtime,
    timeoutMs: raw.timeoutMs === undefined && raw.timeout === undefined ? session.get("exec.timeout") : given.timeoutMs,
  });
}

/** where each line of withServerDefaults' phases came from: the request (named by `door`) or the server's settings */
export function serverDefaultOrigins(
  raw: Record<string, unknown>,
  given: ExecOptions,
  session: Pick<Session, "settings">,
  door: string,
  spliced: Partial<PhaseOrigins> = {},
): Partial<PhaseOrigins> {
  const configured = settingsPhaseOrigins(session.settings);
  const sent = { ...requestPhaseOrigins(given.script, door), ...spliced };
  return Object.fromEntries(SCRIPT_PHASES.map((p) => [p, callerGave(raw, p) ? sent[p] : configured[p]]));
}

/** a request's phase lines with the server's own lines spliced in where they asked, and where each line came from */
export interface SplicedRequest {
  raw: Record<string, unknown>;
  origins: Partial<PhaseOrigins>;
}

/**
 * The null-splice rule (lib/config/null-splice.ts) on a request's phases: a `null` or `"-"` line
 * stands for the server's configured lines of that phase, spliced in at that place, as `-` does in
 * a flag (`--before 'log(1)' --before -`). Run before the request is validated, so that every line
 * after it is plain source; a phase without either is left as sent.
 */
export function spliceRequestPhases(raw: Record<string, unknown>, session: Pick<Session, "settings">, door: string): SplicedRequest {
  const script = raw.script;
  if (!isPlainObject(script)) return { raw, origins: {} };
  const out: Record<string, unknown> = { ...script };
  const origins: Partial<PhaseOrigins> = {};
  for (const phase of SCRIPT_PHASES) {
    const lines = out[phase];
    if (!Array.isArray(lines) || !lines.some((l) => l === null || l === "-")) continue;
    const configured = session.settings.get(`script.${phase}`)?.items ?? [];
    const spliced = spliceLayers<string>([
      { origin: "server", items: configured.map((i) => String(i.value)), itemOrigins: settingsPhaseOrigins(session.settings)[phase] },
      { origin: door, items: lines.map((l) => (l === "-" ? null : l)) as Array<string | null> },
    ]).items;
    out[phase] = spliced.map((i) => i.value);
    origins[phase] = spliced.map((i) => i.origin);
  }
  return { raw: { ...raw, script: out }, origins };
}

function callerGave(raw: Record<string, unknown>, phase: string): boolean {
  return ((raw.script ?? {}) as Record<string, unknown>)[phase] !== undefined;
}
