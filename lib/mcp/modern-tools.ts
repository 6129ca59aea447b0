// A 2026-07-28 connection's tools/list and tools/call go through the SDK v2 client's own listTools
// and callTool, for what that era's Streamable HTTP asks of a client beyond relaying (SEP-2243): a
// tool whose x-mcp-header declarations are invalid is left out of the list (the SDK warns, naming
// it and why) while the others stay usable, and a call mirrors the arguments a tool declares into
// Mcp-Param-* headers, from the list the SDK keeps (on a server that says the headers do not match
// the list it has, the SDK lists again and retries once). A 2025 connection relays both as they came.

import type { Client as V2Client } from "@modelcontextprotocol/client";
import type { Progress } from "./server-notes.ts";
import { StdioTransport } from "./stdio-transport.ts";
import type { Tool } from "./tool.ts";

/** the clients of 2026-07-28 connections (protocol-era.ts adds each one it connects) */
export const modernClients = new WeakSet<object>();

/** every page of a 2026 server's tools/list, as the SDK keeps it */
export async function modernToolList(client: V2Client, timeoutMs: number): Promise<Tool[]> {
  return (await client.listTools(undefined, { timeout: timeoutMs })).tools as unknown as Tool[];
}

/**
 * One tools/call on a 2026 connection. Over HTTP, a connection that has not listed its tools (the
 * call found its tool in the tool-list cache instead) lists them first: the SDK mirrors headers
 * only from a list it holds, and a server routed by those headers may never say they were missing.
 */
export async function modernToolCall(
  conn: { client: object; transport: object; tools?: Promise<Tool[]> },
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: { timeout: number; onprogress?: (p: Progress) => void; signal?: AbortSignal },
): Promise<unknown> {
  const client = conn.client as unknown as V2Client;
  if (!conn.tools && !(conn.transport instanceof StdioTransport)) await client.listTools(undefined, { timeout: options.timeout });
  return client.callTool(params, options as never);
}
