// The stdio transport's check of each message a server writes, instead of the SDK's zod pass. The
// SDK's ReadBuffer parses every line and then checks it against JSONRPCMessageSchema, a zod union
// that walks the whole message (result included): most of what a relayed tools/call costs mcpx
// beyond the pipe itself (docs/decisions/0011). mcpx checks here what the SDK's Protocol reads to
// route a message (jsonrpc, id, method, result, error), and hands results on as they came.

import { isPlainObject } from "../util/json-type.ts";

const isId = (v: unknown) => typeof v === "string" || (typeof v === "number" && Number.isInteger(v));

/**
 * A JSON-RPC 2.0 message as the SDK's Protocol routes it, or a thrown Error naming what is wrong (the
 * transport reports it through onerror and reads on, as it does for the SDK's own ZodError).
 */
export function jsonRpcMessage(m: unknown): unknown {
  if (!isPlainObject(m) || m.jsonrpc !== "2.0") throw new Error('invalid JSON-RPC message: not an object with jsonrpc "2.0"');
  if ("method" in m) {
    if (typeof m.method !== "string") throw new Error("invalid JSON-RPC message: method is not a string");
    if ("id" in m && !isId(m.id)) throw new Error("invalid JSON-RPC request: id is not a string or an integer");
    if (m.params !== undefined && !isPlainObject(m.params)) throw new Error("invalid JSON-RPC message: params is not an object");
    return m;
  }
  if ("result" in m) {
    if (!isId(m.id)) throw new Error("invalid JSON-RPC response: id is not a string or an integer");
    if (!isPlainObject(m.result)) throw new Error("invalid JSON-RPC response: result is not an object");
    return m;
  }
  if ("error" in m) {
    if (m.id !== undefined && !isId(m.id)) throw new Error("invalid JSON-RPC error: id is not a string or an integer");
    const e = m.error;
    if (!isPlainObject(e) || !Number.isInteger(e.code) || typeof e.message !== "string")
      throw new Error("invalid JSON-RPC error: error is not {code, message}");
    return m;
  }
  throw new Error("invalid JSON-RPC message: neither a request, a notification, a result nor an error");
}
