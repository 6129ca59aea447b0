// The Hook: one parsed, validated hook object, the shape every other part of the gate uses
// (matching, the dial, the actions, `mcpx hooks list`). Built only by parseHooks (schema.ts), so a
// Hook that exists has already passed every load-time check.

import type { When } from "../events/match.ts";
import type { Level, Phase } from "./points.ts";

export type HookAction =
  | { kind: "run"; argv: string[] }
  /** absolute after parsing */
  | { kind: "module"; path: string }
  /** target is "namespace.tool" as written; server is the namespace, resolved to a server by the gate */
  | { kind: "plugin"; target: string; server: string; tool: string; args?: Record<string, unknown> }
  | { kind: "prompt"; text: string };

export { WHEN_KEYS } from "../events/match.ts";

export interface Hook {
  /** given, or derived: `${on}.${phase}#${index}` */
  name: string;
  /** a point name, or (phase observe) an event-kind prefix / "*" */
  on: string;
  phase: Phase;
  action: HookAction;
  when: When;
  /** declared, default "advise"; clamped per run by effectiveLevel (dial.ts) */
  effect: Level;
  failure: "open" | "closed";
  /** undefined = the hooks.timeout setting */
  timeoutMs?: number;
  compat?: "claude-code";
  /** where it was declared, e.g. "file:/x/.mcpx.json hooks[2]" */
  origin: string;
  /**
   * A plugin's hook: it is in force as long as the plugin is configured, and before it runs its
   * plugin's server is started if it is not running; a server that cannot be started makes the hook
   * fail (reported; a closed one refuses), never silently absent (decision in docs/plugins.md).
   */
  plugin?: string;
  /**
   * A run's own hook (ExecOptions.hooks): its effect is capped at this level by the dial, which names
   * the cap when it drops a key (declared-hooks.ts PER_RUN_HOOK_CEILING)
   */
  perRunCap?: Level;
}

/**
 * What a hook receives on stdin (run/module) or as arguments (plugin): {point, phase, runId} plus
 * the fields the points table lists for that phase. Loosely typed on purpose: the points table's
 * `receives` text is the contract, and each point's owner fills its own fields.
 */
export interface HookPayload {
  point: string;
  phase: Phase;
  runId: string;
  script?: { path?: string; name?: string; args?: string[]; export?: string };
  call?: { server: string; tool: string; arguments?: Record<string, unknown>; annotations?: Record<string, unknown> };
  server?: { name: string; kind?: string; command?: string; url?: string };
  result?: unknown;
  error?: { name?: string; message: string; code?: string | number };
  [key: string]: unknown;
}
