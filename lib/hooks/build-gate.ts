// Assembling the gate a command runs with: the `hooks` setting parsed (and refused at load when
// wrong), per-run script hooks appended, the dial's policy from settings, and the event bus with
// observe hooks subscribed.

import type { Tap } from "../telemetry/tap.ts";
import type { EventBus } from "../events/bus.ts";
import type { Pool } from "../mcp/pool.ts";
import { withoutSecrets } from "../settings/secret-env.ts";
import { parseHookServers } from "./allowlist.ts";
import type { Hook } from "./hook.ts";
import { hookToolCaller } from "./mcp-hook-calls.ts";
import { startObservers, type Observers } from "./observe.ts";
import { policyFromSettings, stricterPolicy, type PolicySetting } from "./policy.ts";
import type { Level } from "./points.ts";
import type { SettingGetter } from "../settings/registry.ts";
import type { ActionHost, Gate, HookCalls } from "./types.ts";

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
