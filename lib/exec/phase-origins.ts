// Where each phase line came from, so an error thrown by the line can say so (decision 0005): a
// flag, a variable, a config file's line, or the request that sent it. ExecOptions.script stays plain
// strings on the wire; each door knows the origins of what it put there and hands them to execute().

import type { PhaseLine } from "../../launcher/template.ts";
import { SCRIPT_PHASES, type ScriptPhase } from "../settings/registry.ts";
import type { ResolvedSettings } from "../settings/resolve.ts";

/** per phase, one origin per line, in the order of that phase's lines in ExecOptions.script */
export type PhaseOrigins = Record<ScriptPhase, string[]>;

/** a settings origin as a person names it: flag:--before → --before, env:X → X, file:/p:3 → /p:3 */
function originLabel(origin: string): string {
  const m = /^(?:flag|env|file):([\s\S]*)$/.exec(origin);
  return m ? m[1]! : origin;
}

/** the origins of the phases a session resolved, each line its own (as `mcpx settings get` shows them) */
export function settingsPhaseOrigins(settings: ResolvedSettings): PhaseOrigins {
  return Object.fromEntries(SCRIPT_PHASES.map((p) => [p, (settings.get(`script.${p}`)?.items ?? []).map((i) => originLabel(i.origin))])) as PhaseOrigins;
}

/** the same origin for every line of the given phases: what a request body sent */
export function requestPhaseOrigins(script: Partial<Record<ScriptPhase, string[]>>, label: string): Partial<PhaseOrigins> {
  return Object.fromEntries(Object.entries(script).map(([p, lines]) => [p, (lines ?? []).map(() => label)]));
}

/** the runner's view: each line with its origin; a line no door vouched for is named by its place in ExecOptions */
export function phaseLines(script: Partial<Record<ScriptPhase, string[]>>, origins: Partial<PhaseOrigins> = {}): Record<ScriptPhase, PhaseLine[]> {
  return Object.fromEntries(
    SCRIPT_PHASES.map((p) => [p, (script[p] ?? []).map((source, i) => ({ source, origin: origins[p]?.[i] ?? `ExecOptions.script.${p}[${i}]` }))]),
  ) as Record<ScriptPhase, PhaseLine[]>;
}
