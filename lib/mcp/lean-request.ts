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
// progress notifications for a call reach its onprogress. A caller's requests still in flight are
// cancelled at its word (cancel(owner): a run that ended), the server told with notifications/cancelled.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isPlainObject } from "../util/json-type.ts";

type Progress = { progress: number; total?: number; message?: string };

/**
 * sends one request and resolves to its result object as the server sent it; `owner` is whoever may
 * cancel it (cancel(owner, reason): the request fails and the server is told)
 */
export type LeanRequest = ((
  method: string,
  params: Record<string, unknown>,
  timeoutMs: number,
  onprogress?: (p: Progress) => void,
  owner?: object,
) => Promise<unknown>) & { cancel(owner: object, reason: string): void };

interface Pending {
  resolve(result: unknown): void;
  reject(err: unknown): void;
  /** performance.now() past which the request has timed out */
  deadline: number;
  timeoutMs: number;
  onprogress?: (p: Progress) => void;
  owner?: object;
}

/** the SDK's own error codes (ErrorCode in @modelcontextprotocol/sdk/types.js) */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** setTimeout's longest delay (a signed 32-bit count of ms) */
const MAX_DELAY_MS = 2 ** 31 - 1;

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

  // One timer for every request in flight, armed for the earliest deadline, instead of a timer made and
  // cleared per request: an answered request leaves it armed, and when it fires it times out what is
  // past its deadline and arms itself for the next one, or stops when nothing is in flight.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  const arm = (deadline: number) => {
    if (timer !== undefined) clearTimeout(timer);
    armedFor = deadline;
    // at most setTimeout's longest delay (~24.8 days): a longer one would fire at once; expire then re-arms
    timer = setTimeout(expire, Math.min(MAX_DELAY_MS, Math.max(1, Math.ceil(deadline - performance.now()))));
    // what keeps the process alive is the call in flight (its server's pipes), never this timer
    timer.unref?.();
  };
  const expire = () => {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, p] of pending) {
      if (p.deadline <= now) timeOut(id, p);
      else next = Math.min(next, p.deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) arm(next);
  };
  const timeOut = (id: number, p: Pending) => {
    pending.delete(id);
    const error = McpError.fromError(REQUEST_TIMEOUT, "Request timed out", { timeout: p.timeoutMs });
    // as the SDK does: the server may stop working on it (a failed send has nobody left to tell)
    transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: String(error) } }).catch(() => {});
    p.reject(error);
  };

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
  // a connection closed by mcpx with calls in flight (an interrupted `mcpx call`, a pool closing)
  // tells the server first that they are cancelled, as the SDK's aborted request would
  const close = transport.close.bind(transport);
  transport.close = async () => {
    const cancels = [...pending.keys()].map((id) =>
      transport
        .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the client closed the connection" } })
        .catch(() => {}),
    );
    await Promise.all(cancels);
    return close();
  };
  const sdkOnClose = transport.onclose;
  transport.onclose = () => {
    sdkOnClose?.call(transport);
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const error = McpError.fromError(CONNECTION_CLOSED, "Connection closed");
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(error);
    }
  };

  const request = (method: string, params: Record<string, unknown>, timeoutMs: number, onprogress?: (p: Progress) => void, owner?: object) =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error("Not connected"));
      const id = (ids._requestMessageId as number)++;
      const deadline = performance.now() + timeoutMs;
      pending.set(id, { resolve, reject, deadline, timeoutMs, onprogress, owner });
      if (deadline < armedFor) arm(deadline);
      const sent = onprogress ? { ...params, _meta: { ...(params._meta as object | undefined), progressToken: id } } : params;
      transport.send({ jsonrpc: "2.0", id, method, params: sent }).catch((err: unknown) => {
        if (pending.delete(id)) reject(err);
      });
    });
  const cancel = (owner: object, reason: string) => {
    for (const [id, p] of pending) {
      if (p.owner !== owner) continue;
      pending.delete(id);
      transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }).catch(() => {});
      p.reject(new Error(`cancelled: ${reason}`));
    }
  };
  return Object.assign(request, { cancel });
}
