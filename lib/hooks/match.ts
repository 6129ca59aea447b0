// Which hooks fire where: a hook matches a point and phase when its `on` and `phase` say so and
// every `when` filter it declares matches the context. A filter on a value the context does not
// have is a non-match, never a pass: "only for server X" must not fire where there is no server.

import { toIdentifier } from "../codegen/identifiers.ts";
import { matchesKind } from "../events/bus.ts";
import type { Hook, When, WhenKey } from "./hook.ts";
import type { Phase } from "./points.ts";

export type MatchContext = Partial<Record<WhenKey, string>>;

/** server, tool and uri are globs; session is an id and compares exactly */
const GLOB_KEYS: ReadonlySet<WhenKey> = new Set(["server", "tool", "uri"]);

// Globs are compiled once per pattern: matching runs on every call, and the per-call cost with
// hooks configured but none matching should be within noise of no hooks at all.
const globs = new Map<string, Bun.Glob>();
function glob(pattern: string): Bun.Glob {
  let g = globs.get(pattern);
  if (!g) globs.set(pattern, (g = new Bun.Glob(pattern)));
  return g;
}

// the bus's own matcher: an observe hook's `on` means exactly what /v1/events?kinds= means
export { matchesKind };

/** `point` is a point name, or for phase observe the published event kind */
export function hookMatches(hook: Pick<Hook, "on" | "phase" | "when">, point: string, phase: Phase, ctx: MatchContext): boolean {
  if (hook.phase !== phase) return false;
  if (phase === "observe" ? !matchesKind(hook.on, point) : hook.on !== point) return false;
  return whenMatches(hook.when, ctx);
}

export function whenMatches(when: When, ctx: MatchContext): boolean {
  for (const key of Object.keys(when) as WhenKey[]) {
    const pattern = when[key];
    if (pattern === undefined) continue;
    const value = ctx[key];
    if (value === undefined) return false;
    if (!(GLOB_KEYS.has(key) ? globMatches(key, pattern, value) : pattern === value)) return false;
  }
  return true;
}

/**
 * A tool is matched by either spelling: the MCP name the server lists (`get-sum`) or the identifier
 * everything users see shows (`get_sum`: scripts, mcpx ls, types). A guard written with the one it
 * saw in a script must not silently never fire.
 */
function globMatches(key: WhenKey, pattern: string, value: string): boolean {
  const g = glob(pattern);
  return g.match(value) || (key === "tool" && g.match(toIdentifier(value)));
}
