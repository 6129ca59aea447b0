// The autonomy dial: how far one hook's output may act. A hook declares an effect; the phase, the
// caller's hooks.autonomy and the daemon's autonomy.max each clamp it; and every output key above
// the result, or meaningless at that point and phase, is dropped with a reason for the hook frame.
// Dropped keys are never honoured and always reported: a caller can see what a hook wanted.

import { typeName } from "../util/json-type.ts";
import { levelRank, OUTPUT_KEYS, phaseCeiling, phaseSpec, POINTS, type Level, type OutputKey, type Phase, type PointName } from "./points.ts";

/** the names clampedBy uses, in the order the clamps apply */
const CLAMPS = ["phase", "hooks.autonomy", "autonomy.max", "the per-run hooks' cap"] as const;
type Clamp = (typeof CLAMPS)[number];

export interface EffectiveLevel {
  level: Level;
  /** the clamps that lowered the declared effect, in CLAMPS order */
  clampedBy: Clamp[];
}

/**
 * The lowest of the declared effect and the three ceilings (four for a run's own hook, whose cap is
 * `perRunCap`); clampedBy names each ceiling below the declared effect.
 */
export function effectiveLevel(declared: Level, phase: Phase, autonomy: Level, max: Level, perRunCap?: Level): EffectiveLevel {
  const limits: Array<[Clamp, Level]> = [
    ["phase", phaseCeiling(phase)],
    ["hooks.autonomy", autonomy],
    ["autonomy.max", max],
  ];
  if (perRunCap !== undefined) limits.push(["the per-run hooks' cap", perRunCap]);
  let level = declared;
  const clampedBy: Clamp[] = [];
  for (const [name, limit] of limits) {
    if (levelRank(limit) < levelRank(declared)) clampedBy.push(name);
    if (levelRank(limit) < levelRank(level)) level = limit;
  }
  // ask and refuse share a rung: a hook declared "ask" clamped to "refuse" stays "ask"
  return { level, clampedBy };
}

export interface DialResult {
  kept: Partial<Record<OutputKey, unknown>>;
  /** one line per dropped key, "KEY: reason", in the output's key order */
  dropped: string[];
}

/**
 * Splits a hook's output into what acts and what is dropped. `level` is the effective level (pass
 * the whole EffectiveLevel so the reason can say which clamp lowered it); `point` is a point name,
 * or for observe the event kind, where nothing acts.
 */
export function applyDial(output: Record<string, unknown>, level: Level | EffectiveLevel, point: string, phase: Phase): DialResult {
  const { level: lvl, clampedBy } = typeof level === "string" ? { level, clampedBy: [] as Clamp[] } : level;
  const spec = Object.hasOwn(POINTS, point) ? phaseSpec(point as PointName, phase) : undefined;
  const kept: Partial<Record<OutputKey, unknown>> = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(output)) {
    if (!(OUTPUT_KEYS as readonly string[]).includes(key)) {
      dropped.push(`${key}: unknown key (output keys are ${OUTPUT_KEYS.join(", ")})`);
      continue;
    }
    const k = key as OutputKey;
    if (!spec?.keys.includes(k)) {
      dropped.push(`${k}: not acted on at ${phase === "observe" ? "observe" : `${point}.${phase}`}`);
      continue;
    }
    if (levelRank(k) > levelRank(lvl)) {
      dropped.push(`${k}: above ${lvl}${clampedBy.length ? ` (clamped by ${clampedBy.join(", ")})` : ""}`);
      continue;
    }
    const bad = payloadProblem(k, value);
    if (bad) {
      dropped.push(`${k}: ${bad}`);
      continue;
    }
    kept[k] = value;
  }
  return { kept, dropped };
}

// The payload shapes every point shares; a value that cannot mean anything is dropped, not coerced.
// What apply's VALUE must be (an arguments object, a result, an args array) is the point owner's
// check, since only it knows what it is replacing.
function payloadProblem(key: OutputKey, value: unknown): string | undefined {
  switch (key) {
    case "advise":
    case "ask":
    case "refuse":
      if (typeof value !== "string") return `expected a text, got ${typeName(value)}`;
      // an empty reason is how "no objection" is spelled by MCP-driven hooks; it must not refuse
      if (value.trim() === "") return "empty text (no opinion)";
      return undefined;
    case "run":
      return value === "retry" ? undefined : `expected "retry", got ${JSON.stringify(value) ?? typeName(value)}`;
    case "propose":
    case "apply":
      return value === undefined ? "no value" : undefined;
  }
}
