// MCP-driven lifecycle hooks (design §5): the `_`-named tools of servers allowed by
// MCP_HOOK_SERVERS, called in parallel at the point their name binds to and merged in config order.
// Sovereignty: a timeout counts as no objection, and only the second timeout in a row restarts the
// server, so one slow answer is tolerated.

import type { Pool } from "../mcp/pool.ts";
import { resultText } from "../mcp/tool.ts";
import { isAllowed } from "./allowlist.ts";
import { toolFor } from "./mcp-hook-tools.ts";
import type { Level, Phase } from "./points.ts";
import { plainTextOutput } from "./output.ts";
import type { GatePolicy } from "./policy.ts";
import type { HookToolCaller, HookToolResult, Payload } from "./types.ts";

/** what an MCP hook tool may do at most: object (refuse) and advise, never rewrite */
export const MCP_HOOK_EFFECT: Level = "refuse";

type HookToolPool = Pick<Pool, "names" | "tools" | "callHookTool" | "restart">;

/**
 * The hook-tool caller of one pool. It keeps, per server, how many hook-tool timeouts came in a
 * row: the count belongs to the server, not to a run, so every run's gate shares one caller.
 */
export function hookToolCaller(pool: HookToolPool): HookToolCaller {
  const timeouts = new Map<string, number>();
  return {
    async call(point, phase, payload, policy) {
      const tool = toolFor(point, phase);
      if (!tool) return [];
      const servers = pool.names().filter((s) => isAllowed(policy.hookServers, s));
      if (servers.length === 0) return [];
      const results = await Promise.all(servers.map((server) => callOne(pool, timeouts, policy, server, tool, phase, payload)));
      return results.filter((r): r is HookToolResult => r !== undefined);
    },
  };
}

async function callOne(
  pool: HookToolPool,
  timeouts: Map<string, number>,
  policy: GatePolicy,
  server: string,
  tool: string,
  phase: Phase,
  payload: Payload,
): Promise<HookToolResult | undefined> {
  const started = performance.now();
  const done = (r: Omit<HookToolResult, "server" | "tool" | "effect" | "durationMs">): HookToolResult => ({
    server,
    tool,
    effect: MCP_HOOK_EFFECT,
    durationMs: Math.round(performance.now() - started),
    ...r,
  });
  let has: boolean;
  try {
    has = (await pool.tools(server)).some((t) => t.name === tool);
  } catch (err) {
    return done({ failure: `could not list hook tools: ${(err as Error).message}` });
  }
  if (!has) return undefined;
  try {
    const r = await pool.callHookTool(server, tool, payload as Record<string, unknown>, policy.mcpTimeoutMs);
    timeouts.set(server, 0);
    const text = resultText(r);
    if (r.isError) return done({ failure: `${tool} returned an error: ${text}` });
    const out = plainTextOutput(text, phase);
    // hook text is data: it reaches a caller only JSON-encoded, attributed to its hook and server
    for (const key of ["refuse", "advise", "ask"] as const) {
      if (typeof out[key] === "string") out[key] = JSON.stringify({ hook: tool, server, text: out[key] });
    }
    return done({ output: out });
  } catch (err) {
    if ((err as { code?: string }).code === "UPSTREAM_TIMEOUT") {
      const n = (timeouts.get(server) ?? 0) + 1;
      timeouts.set(server, n);
      const restart = n >= 2;
      if (restart) {
        timeouts.set(server, 0);
        // off the call's path: the call waited hooks.mcpTimeout and no longer (the pool's close waits for the stop)
        void pool.restart(server, "hook tool timed out twice").catch(() => {});
      }
      // a timeout is no objection, but it is said: the hook frame's `failed`, hook.failed, a line on stderr
      return done({
        failure:
          `timed out after ${policy.mcpTimeoutMs}ms (hooks.mcpTimeout); no ` +
          `objection${restart ? ", and the server is restarted (a second timeout in a row)" : ""}`,
      });
    }
    return done({ failure: (err as Error).message });
  }
}
