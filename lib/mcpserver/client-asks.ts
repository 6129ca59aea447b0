// What an upstream server asks of `mcpx serve` (elicitation, sampling), forwarded to serve's own
// client: declared upstream only as far as that client declared it when the upstream server starts,
// and asked of it with elicitation/create and sampling/createMessage. Before a client is attached
// (a plugin's server starts with the engine) nothing is declared.

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Answerer, ElicitAnswer } from "../mcp/server-asks.ts";

/**
 * How long a forwarded question waits for its answer: a person answers it, so the SDK's 60 s default
 * is too short; the upstream server's own request (and mcp.callTimeout on the call) still bound it.
 */
const FORWARD_TIMEOUT_MS = 10 * 60 * 1000;

export interface ClientAsks extends Answerer {
  /** the MCP server whose client answers from now on */
  attach(server: Server): void;
}

export function serveClientAsks(): ClientAsks {
  let served: Server | undefined;
  const caps = () => served?.getClientCapabilities();
  return {
    nobody: "mcpx serve's client does not offer elicitation, so nobody can answer it",
    attach(server) {
      served = server;
    },
    async offers() {
      const e = caps()?.elicitation as { form?: unknown; url?: unknown } | undefined;
      // an empty elicitation capability is form mode (the spec's reading of a 2025-06 client)
      return { form: e !== undefined && (e.form !== undefined || e.url === undefined), url: e?.url !== undefined, sampling: caps()?.sampling !== undefined };
    },
    async elicit(_server, params) {
      if (!served) return { action: "decline" };
      return (await served.elicitInput(params as never, { timeout: FORWARD_TIMEOUT_MS })) as ElicitAnswer;
    },
    async sample(_server, params) {
      if (!served) throw new Error("mcpx serve has no client to forward sampling/createMessage to");
      return (await served.createMessage(params as never, { timeout: FORWARD_TIMEOUT_MS })) as unknown as Record<string, unknown>;
    },
  };
}
