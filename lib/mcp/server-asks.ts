// What an upstream server may ask of mcpx, its client: input from a person (elicitation, form or URL
// mode), a model's answer (sampling), and the directories it may work in (roots). Each door answers
// what it can: the person at the terminal (mcpx call, run, exec), the client of `mcpx serve`, or
// nobody (the daemon). A capability is declared only where it can be answered, since servers hide
// what a client cannot answer (server-everything lists no elicitation tool then); a server that asks
// anyway is declined, with one line on stderr saying where it could have been answered.

import { pathToFileURL } from "node:url";
import { basename } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/servers.ts";

/** an elicitation/create's params, form mode (`requestedSchema`) or URL mode (`url`) */
export interface ElicitParams {
  mode?: "form" | "url";
  message: string;
  requestedSchema?: { type: "object"; properties: Record<string, Record<string, unknown>>; required?: string[] };
  url?: string;
  elicitationId?: string;
}

export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** what a door can answer, found when a server connects */
interface Offers {
  form: boolean;
  url: boolean;
  sampling: boolean;
}

/** who answers a server's requests at one door */
export interface Answerer {
  /** what can be answered now (a terminal only when stdin and stderr are TTYs; a serve client as it declared) */
  offers(): Promise<Offers>;
  /** why nothing can be answered here and what would answer, for the one line on stderr ("run it on a terminal") */
  nobody: string;
  elicit(server: string, params: ElicitParams): Promise<ElicitAnswer>;
  sample?(server: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** what a pool answers for its servers (PoolOptions.asks) */
export interface ServerAsks {
  /** undefined: nobody answers (no elicitation, no sampling declared) */
  answerer?: Answerer;
  /** the directory offered as the one root: the run's working directory (the daemon's own, never a caller's) */
  root: string;
  /** where the one line about a request nobody could answer goes */
  log(level: "warn", message: string, source: string): void;
}

const NOBODY = "nobody can answer it here: run the command on a terminal (not through the daemon), or through `mcpx serve` whose client offers it";

const NO_MODEL = "mcpx has no model to ask: `mcpx serve` forwards sampling/createMessage to its client when that client offers sampling";

/** how one server's connection is set up: the capabilities it declares and the handlers it registers */
export interface Asking {
  capabilities: Record<string, unknown>;
  /** registers the handlers on the SDK v1 client (the 2025 era) */
  answerV1(client: Client): Promise<void>;
  /** registers the handlers on the SDK v2 client (the 2026 era: its `input_required` rounds reach the same handlers) */
  answerV2(client: V2Client): void;
}

/** a JSON-RPC error a server reads (the SDK sends a thrown error's numeric `code` as it is) */
function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: -32601 });
}

/** what a server entry is told and answered: asked when it connects, so a terminal is checked then, not at start-up */
export async function askingFor(server: string, cfg: ServerConfig, asks: ServerAsks | undefined): Promise<Asking> {
  const offers: Offers = asks?.answerer ? await asks.answerer.offers() : { form: false, url: false, sampling: false };
  const rootsOn = asks !== undefined && cfg.roots !== false;
  const capabilities: Record<string, unknown> = {
    ...(offers.form || offers.url ? { elicitation: { ...(offers.form ? { form: {} } : {}), ...(offers.url ? { url: {} } : {}) } } : {}),
    ...(offers.sampling ? { sampling: {} } : {}),
    ...(rootsOn ? { roots: {} } : {}),
  };
  const why = asks?.answerer?.nobody ?? NOBODY;
  const roots = () => ({ roots: [{ uri: pathToFileURL(asks!.root).href, name: basename(asks!.root) || asks!.root }] });
  const elicit = (params: unknown) => asks!.answerer!.elicit(server, params as ElicitParams) as never;
  const sample = (params: unknown) => asks!.answerer!.sample!(server, params as Record<string, unknown>) as never;
  // what is not declared still gets an answer: a decline, or an error that says why
  const fallback = async (req: { method: string }): Promise<never> => {
    if (req.method === "elicitation/create") {
      asks?.log("warn", `asked for input (elicitation) and was declined: ${why}`, server);
      return { action: "decline" } as never;
    }
    if (req.method === "sampling/createMessage") {
      asks?.log("warn", `asked for a model's answer (sampling) and was refused: ${NO_MODEL}`, server);
      throw refusal(`sampling/createMessage refused: ${NO_MODEL}`);
    }
    if (req.method === "roots/list") throw refusal(`roots/list refused: ${asks ? `the entry "${server}" sets "roots": false` : "this mcpx offers no roots"}`);
    throw refusal(`mcpx does not answer ${req.method}`);
  };
  return {
    capabilities,
    async answerV1(client) {
      const { ElicitRequestSchema, CreateMessageRequestSchema, ListRootsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
      client.fallbackRequestHandler = fallback as never;
      if (capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, (r) => elicit(r.params));
      if (offers.sampling) client.setRequestHandler(CreateMessageRequestSchema, (r) => sample(r.params));
      if (rootsOn) client.setRequestHandler(ListRootsRequestSchema, roots);
    },
    answerV2(client) {
      client.fallbackRequestHandler = fallback as never;
      if (capabilities.elicitation) client.setRequestHandler("elicitation/create", (r) => elicit(r.params));
      if (offers.sampling) client.setRequestHandler("sampling/createMessage", (r) => sample(r.params));
      if (rootsOn) client.setRequestHandler("roots/list", roots as never);
    },
  };
}
