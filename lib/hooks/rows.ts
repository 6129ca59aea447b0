// One hook as `mcpx hooks list` and `GET /v1/settings/hooks` show it: one shape for both surfaces.

import type { Hook } from "./hook.ts";

export interface HookRow {
  name: string;
  on: string;
  phase: string;
  action: string;
  effect: string;
  failure: string;
  origin: string;
}

export function hookRow(h: Hook): HookRow {
  return { name: h.name, on: h.on, phase: h.phase, action: h.action.kind, effect: h.effect, failure: h.failure, origin: h.origin };
}
