// The gate one request from a --remote caller goes through (/v1/call, /v1/resource, /v1/prompt):
// the daemon's own, plus the caller's guards for that point after it, and the caller's limits where
// they are stricter. Per-run hooks are capped at `refuse` (declared-hooks.ts), so a body can only
// restrict what the daemon's hooks allow, never loosen it; hooks the daemon already has in force
// (a caller sharing its config) are not run twice.

import * as v from "valibot";
import { gateForRun } from "../hooks/build-gate.ts";
import { perRunHooks } from "../hooks/declared-hooks.ts";
import type { Gate } from "../hooks/types.ts";
import { runSettingValues } from "../exec/options.ts";
import { RunSettingsSchema } from "../exec/options-schema.ts";
import { REQUEST_SETTINGS } from "../exec/remote.ts";
import type { DaemonDeps } from "./context.ts";
import { withoutHooksInForce } from "./exec-route.ts";
import { errorResponse } from "./http.ts";

/** a body's `settings`: the caller's limits that bind this request alone (REQUEST_SETTINGS); the stricter of each and the daemon's applies */
export const RequestSettingsSchema = v.optional(
  v.pipe(
    v.record(v.string(), v.unknown()),
    v.check(
      (s) => Object.keys(s).every((k) => (REQUEST_SETTINGS as readonly string[]).includes(k)),
      `only ${REQUEST_SETTINGS.join(" and ")} travel: hooks.autonomy, autonomy.max, hooks.timeout and ` +
        "hooks.mcpTimeout bind the daemon's own hooks too, and its values apply",
    ),
    v.strictObject(Object.fromEntries(REQUEST_SETTINGS.map((path) => [path, RunSettingsSchema.entries[path]!]))),
  ),
);

/** the request's gate, or the 400 naming what is wrong with its hooks */
export function callerGate(
  deps: DaemonDeps,
  points: readonly string[],
  hooks: Array<Record<string, unknown>> | undefined,
  settings: Record<string, unknown> = {},
): { gate: Gate } | { response: Response } {
  const base = deps.engine.gate;
  const { cwd, env } = deps.session;
  try {
    let kept: Array<Record<string, unknown>> = [];
    if (hooks?.length) kept = withoutHooksInForce(hooks, perRunHooks(hooks, cwd, env, points, "hooks"), base.hooks);
    const extra = kept.length ? perRunHooks(kept, cwd, env, points, "hooks") : [];
    return { gate: gateForRun(base, extra, runSettingValues(settings) as never) };
  } catch (err) {
    const message = (err as Error).message;
    return { response: errorResponse(400, "BAD_REQUEST", `hooks: ${message}`, { issues: [{ path: "hooks", message }] }) };
  }
}
