// Which hooks fire where: a hook matches a point and phase when its `on` and `phase` say so and
// every `when` filter it declares matches the context (lib/events/match.ts: the same matcher
// /v1/events filters use).

import { matchesKind, whenMatches, type When } from "../events/match.ts";
import type { Hook } from "./hook.ts";
import type { Phase } from "./points.ts";

export type MatchContext = When;

export { matchesKind };

/** `point` is a point name, or for phase observe the published event kind */
export function hookMatches(hook: Pick<Hook, "on" | "phase" | "when">, point: string, phase: Phase, ctx: MatchContext): boolean {
  if (hook.phase !== phase) return false;
  if (phase === "observe" ? !matchesKind(hook.on, point) : hook.on !== point) return false;
  return whenMatches(hook.when, ctx);
}
