// What a --remote run or call sends beyond what a local one builds: the caller's own script- and
// call-point hooks (a local run has them in force through its engine; a remote one carries them
// along, where the daemon applies them as per-run hooks: a guard in force here is never dropped), and the caller's own limits (ExecOptions.settings).
// Hooks are validated here exactly as a local run would (a bad hook is a usage error before anything
// is sent) and made independent of the caller's directories: relative run/module paths become
// absolute, and derived names are kept. A flag that cannot travel is refused here, never dropped.

import { hooksFromSetting, PER_RUN_POINTS } from "../hooks/declared-hooks.ts";
import type { Session } from "../session/session.ts";
import { formatDuration } from "../settings/duration.ts";
import { UsageError } from "../errors/usage-error.ts";
import type { CommandName } from "../settings/setting-decl.ts";
import { settingsFor } from "../settings/setting-names.ts";
import type { Sourced } from "../settings/resolve.ts";
import { RUN_SETTINGS } from "./options.ts";

/**
 * The caller's limits that travel with the run: every `remote: "run"` setting the caller set (by
 * flag, variable or config; defaults stay home, so the daemon's own apply). The daemon keeps the
 * stricter of each and its own.
 */
export function remoteRunSettings(session: Session): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const decl of RUN_SETTINGS) {
    const s = session.settings.get(decl.path)!;
    if (s.origin === "default") continue;
    out[decl.path] = decl.kind === "duration" ? formatDuration(s.value as number) : (s.value as string | number);
  }
  return out;
}

/**
 * Flags that belong to the process that runs the gate and the pool (the daemon's models, plugins,
 * read limit) cannot travel: accepted and dropped would be the worst bug this project knows, so each
 * is a usage error naming the flag and where to set it instead. A hook in force here that cannot
 * travel (server.start, from any origin; observe, given by flag) is refused for the same reason.
 */
export function refuseStayingFlags(session: Session, command: CommandName): void {
  for (const decl of settingsFor(command)) {
    const origin = session.settings.get(decl.path)!.origin;
    if (decl.remote !== undefined || !origin.startsWith("flag:")) continue;
    throw new UsageError(
      `${origin.slice(5)} does not travel with --remote: ${decl.path} belongs to the daemon ` +
        `(set it where the daemon runs, in its config or MCPX_* environment), or run without --remote`,
    );
  }
  const items = (session.settings.get("hooks")!.items ?? []) as Sourced[];
  const hooks = hooksFromSetting(items, session.cwd, session.env);
  hooks.forEach((hook, i) => {
    const origin = items[i]!.origin;
    // a guard in force here is carried (script, call, resource.read, prompt.get hooks: remoteHooks) or the command fails:
    // dropped in silence, `MCPX_REMOTE=1 mcpx call` would pass a call this config refuses
    if (hook.phase !== "observe" && !(PER_RUN_POINTS as readonly string[]).includes(hook.on)) {
      throw new UsageError(
        `hook ${hook.name} (${describeOrigin(origin)}) is on ${hook.on}.${hook.phase}, which cannot travel with --remote: ` +
          `only script, call, resource.read and prompt.get hooks travel (the daemon's servers start under its own hooks); declare it where the ` +
          `daemon runs, or run without --remote`,
      );
    }
    if (origin.startsWith("flag:") && hook.phase === "observe") {
      throw new UsageError(
        `${origin.slice(5)}: hook ${hook.name} is an observe hook, and only script, call, resource.read and prompt.get hooks travel with ` +
          `--remote (the daemon's own bus is observed by its own hooks): declare it where the daemon runs, or run without --remote`,
      );
    }
  });
}

function describeOrigin(origin: string): string {
  if (origin.startsWith("flag:")) return origin.slice(5);
  if (origin.startsWith("env:")) return origin.slice(4);
  return origin.startsWith("file:") ? origin.slice(5) : origin;
}

/**
 * The caller's own hooks that travel with a remote run or call: every script and call hook in force
 * here (config, MCPX_HOOKS, --hooks), made independent of the caller's directories. The daemon
 * applies them as per-run hooks (they may only restrict: declared-hooks.ts), after its own.
 * @param points `call --remote` sends only the call hooks (a call has no script point)
 */
export function remoteHooks(session: Session, points: readonly string[] = PER_RUN_POINTS): Array<Record<string, unknown>> {
  const items = (session.settings.get("hooks")!.items ?? []) as Sourced[];
  const hooks = hooksFromSetting(items, session.cwd, session.env);
  const out: Array<Record<string, unknown>> = [];
  hooks.forEach((hook, i) => {
    if (!points.includes(hook.on) || hook.phase === "observe") return;
    const raw: Record<string, unknown> = { ...(items[i]!.value as Record<string, unknown>), name: hook.name };
    if (hook.action.kind === "run") raw.run = hook.action.argv;
    if (hook.action.kind === "module") raw.module = hook.action.path;
    out.push(raw);
  });
  return out;
}

/**
 * The caller's limits a remote call, read or get carries (POST /v1/call, /v1/resource, /v1/prompt):
 * those that can only make this one request fail sooner. hooks.autonomy, autonomy.max, hooks.timeout
 * and hooks.mcpTimeout are not among them: they bind every hook in the daemon's gate, its own too,
 * and a lower one would let a caller silence the daemon's refusals (a refuse key dropped, a hook
 * timed out and failed open).
 */
export const REQUEST_SETTINGS = ["mcp.callTimeout", "hooks.retryBudget"] as const;

/** the REQUEST_SETTINGS the caller set; a flag for another run setting cannot travel and is refused, not dropped */
export function remoteRequestSettings(session: Session, command: CommandName): Record<string, string | number> {
  const all = remoteRunSettings(session);
  for (const path of Object.keys(all)) {
    const origin = session.settings.get(path)!.origin;
    if ((REQUEST_SETTINGS as readonly string[]).includes(path) || !origin.startsWith("flag:")) continue;
    throw new UsageError(
      `${origin.slice(5)} does not travel with mcpx ${command} --remote: ${path} binds every hook in the daemon's gate, its own ` +
        `too, so the daemon's value applies (set it where the daemon runs), or run without --remote`,
    );
  }
  return Object.fromEntries(REQUEST_SETTINGS.flatMap((path) => (all[path] === undefined ? [] : [[path, all[path]]])));
}
