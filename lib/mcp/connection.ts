// What the pool keeps of one open server (its client, transport, tool list and output checks), and
// the two things of the SDK every request through it is handed: a result schema that passes the
// message as it came, and the process's one Ajv provider.

import type { CallNotes, Progress } from "./server-notes.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { LeanRequest } from "./lean-request.ts";
import type { Tool } from "./tool.ts";
import { modernClients, modernToolCall } from "./modern-tools.ts";

/** a compiled outputSchema (the SDK's Ajv provider, as its own callTool uses) */
export type OutputCheck = (value: unknown) => { valid: boolean; errorMessage?: string };

export interface Connection {
  client: Client;
  transport: Transport;
  tools?: Promise<Tool[]>;
  /** what `tools` resolved to, once it has (a call then finds its tool without waiting a turn); cleared with it */
  listed?: Tool[];
  /**
   * the tools its last list said must be called as tasks (task-call.ts); kept across a
   * tools/list_changed until the next list arrives, since a call made meanwhile does not wait for one
   */
  taskTools?: ReadonlySet<string>;
  /** each called tool's output-schema check, compiled at its first call (null: it has none); cleared with tools */
  outputChecks: Map<string, OutputCheck | null>;
  /** tools/call past the SDK's Protocol (lean-request.ts); undefined where it cannot be installed */
  lean?: LeanRequest;
}

/** the transports whose connection closed (the server exited, its pipe broke): a failed call on one is UPSTREAM_CLOSED */
export const closedTransports = new WeakSet<Transport>();
/** the transports that found a message over mcp.maxMessage: the SDK then closes them, and the close is what callers see */
export const overLimitTransports = new WeakSet<Transport>();

/**
 * The result schema mcpx hands the SDK for what it only relays (tools/call, tools/list): it accepts
 * the message as it came. The SDK's zod schemas checked every result field by field; mcpx reads a
 * result through resultText/asCallResult, which accept any shape, and checks what it relies on
 * itself (docs/decisions/0011). A plain { safeParse } object is the SDK's zod-v3 path (lib
 * zod-compat: no `_zod`).
 */
export const PASS_THROUGH = {
  safeParse: (data: unknown) => ({ success: true as const, data }),
  // the same for the SDK v2 client of a 2026-era connection, which takes a Standard Schema (v1 ignores it)
  "~standard": { version: 1, vendor: "mcpx", validate: (value: unknown) => ({ value }) },
};

type AjvProvider = typeof import("@modelcontextprotocol/sdk/validation/ajv");
let outputAjv: InstanceType<AjvProvider["AjvJsonSchemaValidator"]> | undefined;

/**
 * The SDK's Ajv provider, one for the process and built when a schema is first compiled. Handed to
 * every Client too: a Client builds its own by default (an Ajv with its formats, CPU a one-shot call
 * spends while its server starts) and never uses it here, since mcpx checks outputs itself.
 */
export function outputValidator(provider: AjvProvider): jsonSchemaValidator {
  return {
    getValidator: (schema) => {
      outputAjv ??= new provider.AjvJsonSchemaValidator();
      return outputAjv.getValidator(schema);
    },
  };
}

/** one tools/call on its way: what the pool's sending methods share */
export interface OneCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  timeoutMs: number;
  /** hook tools: a single timeout must not restart the server (design §5) */
  keepOnTimeout: boolean;
  notes: CallNotes | undefined;
  /** keys for `params._meta` (the W3C trace context of a traced call) */
  meta?: Readonly<Record<string, string | undefined>>;
}

/** a tools/call's params: the tool, its arguments and, where there is any, the call's `_meta` */
export function callParams(c: OneCall): { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> } {
  return c.meta ? { name: c.tool, arguments: c.args, _meta: { ...c.meta } } : { name: c.tool, arguments: c.args };
}

/** a tools/call sent as it is (not as a task): on the lean path where the connection has one, else through the SDK's request */
export function plainCall(conn: Connection, c: OneCall, onprogress: ((p: Progress) => void) | undefined): Promise<unknown> {
  const params = callParams(c);
  if (conn.lean) return conn.lean("tools/call", params, c.timeoutMs, onprogress, c.notes);
  const options = {
    timeout: c.timeoutMs,
    ...(onprogress ? { onprogress } : {}),
    // the SDK tells the server with notifications/cancelled when the run's end aborts it
    ...(c.notes ? { signal: c.notes.signal } : {}),
  };
  if (modernClients.has(conn.client)) return modernToolCall(conn, params, options);
  return conn.client.request({ method: "tools/call", params }, PASS_THROUGH as never, options);
}
