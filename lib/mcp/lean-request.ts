// A request to a stdio server without the SDK Protocol's request machinery. For every message a server
// writes, the SDK's Protocol asks zod whether it is a result, an error, a request or a notification
// (each a parse of the whole message, result included), and every request it sends costs a
// progress-handler entry, a timeout record and closures besides. mcpx relays tools/call results as
// they come, so its calls take this path: the message is sent on the client's transport with an id
// from the client's own counter (no id is ever used twice on one connection), and its answer is taken
// off the transport before the SDK's routing sees it. initialize, tools/list, notifications and
// anything else still go through the SDK (docs/decisions/0011).
//
// What the SDK's request did is kept: the timeout fails the call with the SDK's own McpError
// (RequestTimeout, data { timeout }) and tells the server with notifications/cancelled; a JSON-RPC
// error answer is the SDK's McpError of that code; a closed connection fails every call in flight
// with McpError ConnectionClosed, and a call made after it with "Not connected", as the SDK did;
// progress notifications for a call reach its onprogress.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isPlainObject } from "../util/json-type.ts";

type Progress = { progress: number; total?: number; message?: string };

/** sends one request and resolves to its result object as the server sent it */
export type LeanRequest = (method: string, params: Record<string, unknown>, timeoutMs: number, onprogress?: (p: Progress) => void) => Promise<unknown>;

interface Pending {
  resolve(result: unknown): void;
  reject(err: unknown): void;
  timer: ReturnType<typeof setTimeout>;
  onprogress?: (p: Progress) => void;
}

/** the SDK's own error codes (ErrorCode in @modelcontextprotocol/sdk/types.js) */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/**
 * Takes over the answers to its own requests on a connected client's transport. Undefined when the
 * client does not have the shape this SDK version gives it (its numeric `_requestMessageId`, a
 * transport with onmessage set by connect): the caller then keeps using client.request, slower and
 * never wrong.
 */
export function leanRequests(client: Client, transport: Transport, McpError: typeof SdkMcpError): LeanRequest | undefined {
  const ids = client as unknown as { _requestMessageId?: unknown };
  const sdkOnMessage = transport.onmessage;
  if (typeof ids._requestMessageId !== "number" || typeof sdkOnMessage !== "function") return undefined;
  const pending = new Map<number, Pending>();
  let closed = false;

  /** true when the message was the answer to (or progress of) one of ours */
  const take = (m: Record<string, unknown>): boolean => {
    if ("method" in m) {
      if (m.method !== "notifications/progress" || !isPlainObject(m.params)) return false;
      const { progressToken, ...progress } = m.params;
      const p = pending.get(Number(progressToken));
      if (!p) return false;
      if (typeof progress.progress === "number") p.onprogress?.(progress as Progress);
      return true;
    }
    if (m.id === undefined || m.id === null) return false;
    const id = Number(m.id); // as the SDK matches them: a server that echoes 7 as "7" still answers 7
    const p = pending.get(id);
    if (!p) return false;
    pending.delete(id);
    clearTimeout(p.timer);
    if ("result" in m) p.resolve(m.result);
    else {
      const e = m.error as { code: number; message: string; data?: unknown };
      p.reject(McpError.fromError(e.code, e.message, e.data));
    }
    return true;
  };
  transport.onmessage = (message, extra) => {
    if (pending.size > 0 && take(message as unknown as Record<string, unknown>)) return;
    sdkOnMessage.call(transport, message, extra);
  };
  const sdkOnClose = transport.onclose;
  transport.onclose = () => {
    sdkOnClose?.call(transport);
    closed = true;
    const error = McpError.fromError(CONNECTION_CLOSED, "Connection closed");
    for (const [id, p] of pending) {
      pending.delete(id);
      clearTimeout(p.timer);
      p.reject(error);
    }
  };

  return (method, params, timeoutMs, onprogress) =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error("Not connected"));
      const id = (ids._requestMessageId as number)++;
      const timer = setTimeout(() => {
        pending.delete(id);
        const error = McpError.fromError(REQUEST_TIMEOUT, "Request timed out", { timeout: timeoutMs });
        // as the SDK does: the server may stop working on it (a failed send has nobody left to tell)
        transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(error) } }).catch(() => {});
        reject(error);
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer, onprogress });
      const sent = onprogress ? { ...params, _meta: { ...(params._meta as object | undefined), progressToken: id } } : params;
      transport.send({ jsonrpc: "2.0", id, method, params: sent }).catch((err: unknown) => {
        if (!pending.delete(id)) return;
        clearTimeout(timer);
        reject(err);
      });
    });
}
