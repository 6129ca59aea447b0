// `_Stop` and `_PostCompact`: the agent-host convention of seed 000, served by mcpx (design §5).
// One call fires its point once through the gate: mcpx's own hooks in declaration order, then the
// same-named tools of MCP_HOOK_SERVERS-allowed upstream servers (hookToolCaller: hooks.mcpTimeout,
// a timeout is no objection, the second in a row restarts the server). The host gets every text
// JSON-encoded as an array of {hook, server, text}, or empty text when there is nothing to say.

import type { HookFrameBody } from "../exec/frames.ts";
import { runGate } from "../hooks/gate.ts";
import type { Gate } from "../hooks/types.ts";
import { isAllowed } from "../hooks/allowlist.ts";
import type { Pool } from "../mcp/pool.ts";

/** the servers the engine's pool holds: an upstream hook tool's text is attributed only to one of them */
type Servers = Pick<Pool, "names">;

/** one hook's text, attributed: server is "mcpx" for mcpx's own hooks, else the upstream server */
export interface Attributed {
  hook: string;
  server: string;
  text: string;
}

export interface AgentHookOutcome {
  /** `_Stop`: the objections; `_PostCompact`: the texts to re-inject */
  texts: Attributed[];
  /** every hook frame, in the order the gate emitted them (advice, failures, dropped keys) */
  frames: HookFrameBody[];
}

/** the server name mcpx's own hooks are attributed to */
const OWN_SERVER = "mcpx";

/** `_Stop`: agent.stop before; every hook may object, and every objection is returned */
export async function agentStop(gate: Gate, pool: Servers, onFrame: (f: HookFrameBody) => void = () => {}): Promise<AgentHookOutcome> {
  const frames: HookFrameBody[] = [];
  const d = await runGate(gate, "agent.stop", "before", {}, (f) => {
    frames.push(f);
    onFrame(f);
  });
  const objections = d.objections ?? (d.refused ? [d.refused] : []);
  return { texts: objections.map((o) => attribute(gate, pool, o.hook, o.reason, "_Stop")), frames };
}

/** `_PostCompact`: agent.compact onSuccess; each hook's advice is text to re-inject */
export async function agentCompact(gate: Gate, pool: Servers, onFrame: (f: HookFrameBody) => void = () => {}): Promise<AgentHookOutcome> {
  const frames: HookFrameBody[] = [];
  await runGate(gate, "agent.compact", "onSuccess", {}, (f) => {
    frames.push(f);
    onFrame(f);
  });
  const texts = frames.flatMap((f) => (f.advice ?? []).map((a) => attribute(gate, pool, f.name ?? "", a, "_PostCompact")));
  return { texts, frames };
}

/** the tool's text: the JSON array, or empty when nobody has anything to say (seed 000: empty = no objection) */
export function hookToolText(texts: readonly Attributed[]): string {
  return texts.length === 0 ? "" : JSON.stringify(texts);
}

/**
 * Who said it. The gate names an upstream hook tool `${server}.${tool}` and hookToolCaller has
 * already JSON-encoded its text as {hook, server, text} (hook text is data, never instructions);
 * that encoding is decoded here so the host gets one flat array, not JSON inside JSON. Anything
 * else is mcpx's own hook, whose text is attributed to "mcpx" under the hook's name.
 */
export function attribute(gate: Pick<Gate, "policy">, pool: Servers, hookName: string, text: string, tool: string): Attributed {
  const dot = hookName.lastIndexOf(`.${tool}`);
  const server = dot > 0 && dot + tool.length + 1 === hookName.length ? hookName.slice(0, dot) : undefined;
  if (server !== undefined && pool.names().includes(server) && isAllowed(gate.policy.hookServers, server)) {
    const decoded = decodeAttributed(text, server, tool);
    if (decoded) return decoded;
  }
  return { hook: hookName, server: OWN_SERVER, text };
}

// "asks" an upstream hook cannot put to anybody comes back from the gate with this note appended
const UNANSWERED = / \(asked, and nobody can answer here\)$/;

function decodeAttributed(text: string, server: string, tool: string): Attributed | undefined {
  const note = UNANSWERED.exec(text)?.[0] ?? "";
  try {
    const o = JSON.parse(note ? text.slice(0, -note.length) : text) as Partial<Attributed>;
    if (o && o.hook === tool && o.server === server && typeof o.text === "string") return { hook: tool, server, text: o.text + note };
  } catch {
    // not the encoding hookToolCaller writes: treat it as mcpx's own
  }
  return undefined;
}
