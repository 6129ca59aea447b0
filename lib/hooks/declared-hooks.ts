// The hooks a config's hooks setting or a request declares, parsed and checked: no gate, no action
// host, nothing they will run. A --remote client reads them to carry them along (lib/exec/remote.ts)
// and must not load the gate to do it: the gate's modules were most of its start-up.

import { dirname } from "node:path";
import { EVENT_KIND_NAMES } from "../events/kinds.ts";
import { matchesKind } from "./match.ts";
import type { Sourced } from "../settings/resolve.ts";
import type { Hook } from "./hook.ts";
import type { Level } from "./points.ts";
import { HookConfigError, parseHooks } from "./schema.ts";

/** per-run hooks (ExecOptions.hooks, /v1/call's hooks) may stop things but never change values (design §1: "may only lower") */
const PER_RUN_HOOK_CEILING: Level = "refuse";

/** the hooks setting's items, each named by where it came from and its index there */
export function hooksFromSetting(items: readonly Sourced[], cwd: string, env: Record<string, string | undefined>): Hook[] {
  const seen = new Map<string, number>();
  return checkObserved(
    parseHooks(
      items.map((item) => {
        const n = seen.get(item.origin) ?? 0;
        seen.set(item.origin, n + 1);
        const file = item.origin.startsWith("file:") ? item.origin.slice(5) : undefined;
        return { value: item.value, origin: `${file ?? item.origin} hooks[${n}]`, baseDir: file ? dirname(file) : cwd };
      }),
      { PATH: env.PATH },
    ),
  );
}

/** an observe hook's `on` must name something the bus publishes, or it would never fire */
function checkObserved(hooks: Hook[]): Hook[] {
  for (const h of hooks) {
    if (h.phase !== "observe" || h.on === "*" || EVENT_KIND_NAMES.some((k) => matchesKind(h.on, k))) continue;
    throw new HookConfigError({
      problem: `observe hook ${h.name}: on "${h.on}" matches no event kind`,
      origin: h.origin,
      key: "on",
      fix: `use "*" or a prefix of ${EVENT_KIND_NAMES.join(", ")}`,
    });
  }
  return hooks;
}

/**
 * The points a per-run hook may be on: its run (script) and that run's own calls, reads and gets (call,
 * resource.read, prompt.get), which is how a caller's guards travel with --remote (lib/exec/remote.ts).
 * Each only restricts what this run does (the effect ceiling below); server.start is not per run (the
 * servers are the process's).
 */
export const PER_RUN_POINTS = ["script", "call", "resource.read", "prompt.get"] as const;

/** @param points the points this door's per-run hooks may be on (`/v1/call` takes only call hooks) */
export function perRunHooks(
  values: readonly unknown[],
  cwd: string,
  env: Record<string, string | undefined>,
  points: readonly string[] = PER_RUN_POINTS,
  origin = "ExecOptions.hooks",
): Hook[] {
  const hooks = parseHooks(
    values.map((value, i) => ({ value, origin: `${origin}[${i}]`, baseDir: cwd })),
    { PATH: env.PATH },
  );
  for (const h of hooks) {
    if (!points.includes(h.on) || h.phase === "observe") {
      throw new HookConfigError({
        problem: `a per-run hook must be on ${points.map((p) => `"${p}"`).join(" or ")} (not observe), not ${h.on}.${h.phase}`,
        origin: h.origin,
        key: "on",
        fix: "declare server.start and observe hooks in the hooks setting",
      });
    }
  }
  // capped by the dial, not lowered here: a key the cap drops is then reported as the cap's doing
  return hooks.map((h) => ({ ...h, perRunCap: PER_RUN_HOOK_CEILING }));
}
