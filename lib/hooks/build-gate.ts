// Assembling the gate a command runs with: the `hooks` setting parsed (and refused at load when
// wrong), per-run script hooks appended, the dial's policy from settings, and the event bus with
// observe hooks subscribed.

import { dirname } from "node:path";
import type { Tap } from "../telemetry/tap.ts";
import type { EventBus } from "../events/bus.ts";
import { EVENT_KIND_NAMES } from "../events/kinds.ts";
import { matchesKind } from "./match.ts";
import type { Pool } from "../mcp/pool.ts";
import type { Sourced } from "../settings/resolve.ts";
import { withoutSecrets } from "../settings/secret-env.ts";
import { parseHookServers } from "./allowlist.ts";
import type { Hook } from "./hook.ts";
import { hookToolCaller } from "./mcp-hook-calls.ts";
import { startObservers, type Observers } from "./observe.ts";
import { policyFromSettings, stricterPolicy, type PolicySetting } from "./policy.ts";
import type { Level } from "./points.ts";
import { HookConfigError, parseHooks } from "./schema.ts";
import type { SettingGetter } from "../settings/registry.ts";
import type { ActionHost, Gate, HookCalls } from "./types.ts";

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

/**
 * The gate one run goes through: the process's gate with the run's own script hooks after its hooks,
 * and the run's own settings applied where they are stricter. It reads the process's hooks live
 * (a plugin's hooks come and go with its server), so it is a view on that gate, not a copy.
 */
export function gateForRun(base: Gate, extraHooks: readonly Hook[], settings: Partial<Record<PolicySetting, Level | number>>): Gate {
  if (extraHooks.length === 0 && Object.keys(settings).length === 0) return base;
  const policy = stricterPolicy(base.policy, settings);
  return Object.create(base, {
    hooks: { get: () => (extraHooks.length ? [...base.hooks, ...extraHooks] : base.hooks) },
    policy: { value: policy },
  }) as Gate;
}

/**
 * The gate with `ask` answered by someone (an MCP client that can elicit): like gateForRun, a view
 * on the process's gate, so hooks that arrive with a plugin's server are in force for it too.
 */
export function gateWithAsk(base: Gate, ask: NonNullable<Gate["ask"]>): Gate {
  return Object.create(base, { ask: { value: ask } }) as Gate;
}

/** what the gate reads of a command's session (lib/session/session.ts gives it) */
interface GateSettings {
  get: SettingGetter;
  env: Record<string, string | undefined>;
  cwd: string;
  log(level: "warn", message: string, source?: string): void;
}

export interface GateInput {
  session: GateSettings;
  pool: Pool;
  bus: EventBus;
  hooks: Hook[];
  /** hooks that come and go (a plugin's, while its server lives), after the fixed ones */
  dynamicHooks?: () => Hook[];
  ask?: (question: string) => Promise<boolean | undefined>;
  /** how hook actions call tools and run modules (lib/exec/hook-calls.ts); absent, they cannot, and say so */
  calls?: HookCalls;
  /** who listens at the instrumentation points (lib/telemetry/tap.ts): the audit log, spans */
  tap?: Tap;
}

export function buildGate({ session, pool, bus, hooks, dynamicHooks = () => [], ask, calls, tap }: GateInput): { gate: Gate; observers: Observers } {
  const get = session.get;
  const url = get("model.url");
  const host: ActionHost = {
    startServer: (name) => pool.tools(name).then(() => {}),
    // a hook process (run, module, observe) is started by mcpx: it never inherits mcpx's secrets
    env: withoutSecrets(session.env),
    cwd: session.cwd,
    model: url ? { url, name: get("model.name"), apiKey: get("model.apiKey") || undefined } : undefined,
    warn: (m) => session.log("warn", m, "hooks"),
  };
  const fixed = hooks.filter((h) => h.phase !== "observe");
  const gate: Gate = {
    get hooks() {
      const extra = dynamicHooks().filter((h) => h.phase !== "observe");
      return extra.length ? [...fixed, ...extra] : fixed;
    },
    policy: policyFromSettings(get, parseHookServers(get("hooks.mcpServers"))),
    hookFailed: (data, where) => bus.publish("hook.failed", data, where),
    host,
    hookTools: hookToolCaller(pool),
    ask,
    calls,
    ...(tap ? { tap } : {}),
  };
  const observing = hooks.filter((h) => h.phase === "observe");
  const observers = startObservers(bus, () => [...observing, ...dynamicHooks().filter((h) => h.phase === "observe")], gate);
  return { gate, observers };
}
