// The flat MCPX_HOOK_* variables a run or module hook gets beside its JSON stdin, for one-liners
// that would rather read $MCPX_HOOK_TOOL than parse JSON. One table: hookEnv, docs/hooks.md and
// any outbound-variable listing all read it, so a variable cannot be set without being documented.

import type { Hook, HookPayload } from "./hook.ts";
import type { Phase } from "./points.ts";

export interface HookEnvContext {
  hook: Pick<Hook, "name">;
  point: string;
  phase: Phase;
  payload: Partial<Pick<HookPayload, "runId" | "call" | "server" | "script">> & { event?: { server?: string; tool?: string } };
}

export interface HookEnvVar {
  name: `MCPX_HOOK_${string}`;
  description: string;
  get: (ctx: HookEnvContext) => string | undefined;
}

export const HOOK_ENV: readonly HookEnvVar[] = [
  { name: "MCPX_HOOK_POINT", description: "the point (script, call, server.start), or for observe hooks the event kind", get: (c) => c.point },
  { name: "MCPX_HOOK_PHASE", description: "the phase: before, onSuccess, onError, suffix or observe", get: (c) => c.phase },
  { name: "MCPX_HOOK_NAME", description: "the hook's name, given or derived (`on.phase#index`)", get: (c) => c.hook.name },
  {
    name: "MCPX_HOOK_RUN_ID",
    description: "the run's id, as in its start frame (observe hooks: for events that belong to a run)",
    get: (c) => c.payload.runId,
  },
  {
    name: "MCPX_HOOK_SERVER",
    description: "the upstream server: the called one (call), the starting one (server.start), or the event's (observe)",
    get: (c) => c.payload.call?.server ?? c.payload.server?.name ?? c.payload.event?.server,
  },
  {
    name: "MCPX_HOOK_TOOL",
    description: "the called tool's name as the server lists it (call, or the event's for observe)",
    get: (c) => c.payload.call?.tool ?? c.payload.event?.tool,
  },
  { name: "MCPX_HOOK_SCRIPT", description: "the script's path, where the payload has one (the script point)", get: (c) => c.payload.script?.path },
];

/** the variables that have a value for this hook invocation; absent ones are left unset, not empty */
export function hookEnv(hook: Pick<Hook, "name">, point: string, phase: Phase, payload: HookEnvContext["payload"]): Record<string, string> {
  const out: Record<string, string> = {};
  const ctx: HookEnvContext = { hook, point, phase, payload };
  for (const v of HOOK_ENV) {
    const value = v.get(ctx);
    if (value !== undefined && value !== "") out[v.name] = value;
  }
  return out;
}
