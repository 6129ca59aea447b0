// MCP-driven lifecycle hooks (design §5): the `_`-named tools of servers allowed by
// MCP_HOOK_SERVERS, called in parallel at the point their name binds to and merged in config order.
// Sovereignty: a timeout counts as no objection, and only the second timeout in a row restarts the
// server, so one slow answer is tolerated.

import type { Gate, Payload } from "./gate.ts";
import { isAllowed } from "./allowlist.ts";
import { toolFor } from "./mcp-hook-tools.ts";
import type { Level, Phase, PointName } from "./points.ts";
import { plainTextOutput } from "./output.ts";

/** what an MCP hook tool may do at most: object (refuse) and advise, never rewrite */
export const MCP_HOOK_EFFECT: Level = "refuse";

export interface HookToolResult {
  server: string;
  tool: string;
  effect: Level;
  output?: Record<string, unknown>;
  failure?: string;
  durationMs: number;
}

export async function callHookTools(gate: Gate, point: PointName, phase: Phase, payload: Payload): Promise<HookToolResult[]> {
  const tool = toolFor(point, phase);
  if (!tool) return [];
  const servers = gate.pool.names().filter((s) => isAllowed(gate.policy.hookServers, s));
  if (servers.length === 0) return [];
  const results = await Promise.all(servers.map((server) => callOne(gate, server, tool, phase, payload)));
  return results.filter((r): r is HookToolResult => r !== undefined);
}

async function callOne(gate: Gate, server: string, tool: string, phase: Phase, payload: Payload): Promise<HookToolResult | undefined> {
  const started = performance.now();
  const done = (r: Omit<HookToolResult, "server" | "tool" | "effect" | "durationMs">): HookToolResult => ({ server, tool, effect: MCP_HOOK_EFFECT, durationMs: Math.round(performance.now() - started), ...r });
  let has: boolean;
  try {
    has = (await gate.pool.tools(server)).some((t) => t.name === tool);
  } catch (err) {
    return done({ failure: `could not list hook tools: ${(err as Error).message}` });
  }
  if (!has) return undefined;
  try {
    const r = await gate.pool.call(server, tool, payload as Record<string, unknown>, gate.policy.mcpTimeoutMs, true);
    gate.mcpTimeouts.set(server, 0);
    const text = (r.content ?? []).map((c) => (c as { text?: string }).text ?? "").join("\n");
    if (r.isError) return done({ failure: `${tool} returned an error: ${text}` });
    const out = plainTextOutput(text, phase);
    // hook text is data: it reaches a caller only JSON-encoded, attributed to its hook and server
    for (const key of ["refuse", "advise", "ask"] as const) {
      if (typeof out[key] === "string") out[key] = JSON.stringify({ hook: tool, server, text: out[key] });
    }
    return done({ output: out });
  } catch (err) {
    if ((err as { code?: string }).code === "UPSTREAM_TIMEOUT") {
      const n = (gate.mcpTimeouts.get(server) ?? 0) + 1;
      gate.mcpTimeouts.set(server, n);
      if (n >= 2) {
        gate.mcpTimeouts.set(server, 0);
        await gate.pool.restart(server);
      }
      return done({ output: {} }); // a timeout is no objection
    }
    return done({ failure: (err as Error).message });
  }
}
