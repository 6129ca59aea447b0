// The one matcher for "which events or operations does this pattern mean": an event kind by prefix
// (an observe hook's `on`, /v1/events?kinds=), and a context by its fields (a hook's `when`,
// /v1/events filters). Both surfaces import it from here, so they cannot drift apart.

import { toIdentifier } from "../mcp/tool-names.ts";

/** the context fields a `when` filter (or a /v1/events filter) can test */
export const WHEN_KEYS = ["server", "tool", "session", "uri"] as const;
type WhenKey = (typeof WHEN_KEYS)[number];
export type When = Partial<Record<WhenKey, string>>;

/**
 * Prefix match on dot boundaries: "call", "call." and "call.finished" match "call.finished";
 * "callx", "call.fin" and "" do not; "*" matches every kind.
 */
export function matchesKind(prefix: string, kind: string): boolean {
  if (prefix === "*") return true;
  if (prefix === "" || prefix === ".") return false;
  return kind === prefix || kind.startsWith(prefix.endsWith(".") ? prefix : `${prefix}.`);
}

/** server, tool and uri are globs; session is an id and compares exactly */
const GLOB_KEYS: ReadonlySet<WhenKey> = new Set(["server", "tool", "uri"]);

// Globs are compiled once per pattern: matching runs on every call, and the per-call cost with
// hooks configured but none matching should be within noise of no hooks at all.
const globs = new Map<string, Bun.Glob>();
function glob(pattern: string): Bun.Glob {
  let g = globs.get(pattern);
  if (!g) {
    g = new Bun.Glob(pattern);
    globs.set(pattern, g);
  }
  return g;
}

/**
 * Every field the pattern gives must match the context. A field the context does not have is a
 * non-match, never a pass: "only for server X" must not fire where there is no server.
 */
export function whenMatches(when: When, ctx: When): boolean {
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
 * A server or tool is matched by either spelling: the MCP name the config or server gives (`my-srv`,
 * `get-sum`) or the identifier everything users see shows (`my_srv`, `get_sum`: scripts, mcpx ls,
 * types). A guard written with the one it saw in a script must not silently never fire.
 */
function globMatches(key: WhenKey, pattern: string, value: string): boolean {
  const g = glob(pattern);
  return g.match(value) || (key !== "uri" && g.match(toIdentifier(value)));
}
