// Why a tools/call failed, and the UpstreamError that says so: decided by the SDK's error codes and
// the connection's state, never by the words of a message (a tool's own error that says "timed out"
// must not get a healthy server stopped). Which failures also drop the server is said here; the
// pool does the dropping.

import type { ErrorCode as RpcCode } from "@modelcontextprotocol/sdk/types.js";
import { AuthRequiredError } from "./oauth/provider.ts";
import { UpstreamError } from "./upstream-error.ts";

/**
 * The SDK's RequestTimeout, as its client raises it. Typed as the SDK's own member, so a code that
 * drifted from the SDK's fails typecheck; read without loading the SDK, which a command that never
 * sees a failed call does not need.
 */
const REQUEST_TIMEOUT: RpcCode.RequestTimeout = -32001;

/**
 * Why a tools/call failed, from what the SDK says:
 * - "closed": the connection closed under the call (seen by our onclose), or the transport itself
 *   failed (a write to a dead process: not an McpError, which is what answers from servers are)
 * - "timeout": the SDK's own request timeout, which it raises with { timeout } in its data
 * - "server": the server answered with a JSON-RPC error; it is alive and stays
 */
export function callFailure(err: unknown, transportClosed: boolean): "closed" | "timeout" | "server" {
  if (transportClosed) return "closed";
  const e = err as { name?: string; code?: unknown; data?: { timeout?: unknown } };
  const fromProtocol = e?.name === "McpError" && typeof e.code === "number";
  if (!fromProtocol) return "closed";
  if (e.code === REQUEST_TIMEOUT && typeof e.data?.timeout === "number") return "timeout";
  return "server";
}

/** one failed tools/call, as the pool saw it */
export interface FailedCall {
  server: string;
  tool: string;
  timeoutMs: number;
  /** hook tools: a single timeout must not restart the server (design §5) */
  keepOnTimeout: boolean;
  maxMessageBytes: number;
  /** the server's message was over mcp.maxMessage (its transport said so, and closed) */
  overLimit: boolean;
  /** the connection had closed */
  closed: boolean;
  /** the run that made the call ended first, and cancelled it (server-notes.ts): the server is alive and stays */
  cancelled?: boolean;
  /** what the messages call the request; default `tools/call "TOOL"` (resources/read and prompts/get name theirs) */
  request?: string;
}

/** the error a failed call raises, and why the server is dropped when it must be (a hung or closed one would fail the next call too) */
export async function failedCall(c: FailedCall, cause: unknown): Promise<{ error: UpstreamError; drop?: string }> {
  const { server, tool, timeoutMs, keepOnTimeout } = c;
  const request = c.request ?? `tools/call "${tool}"`;
  const err = cause instanceof NotAResult ? await sdkError("InvalidParams", cause.message) : cause;
  const msg = String((err as Error)?.message ?? err);
  if (c.overLimit) {
    return {
      drop: "message over mcp.maxMessage",
      error: new UpstreamError(
        `server "${server}": the answer to ${request} exceeded mcp.maxMessage ` +
          `(${c.maxMessageBytes} bytes); raise mcp.maxMessage (MCPX_MCP_MAX_MESSAGE, ` +
          `--mcp-max-message) to read it. The server was stopped and the next call restarts it`,
        server,
        "UPSTREAM_TOO_LARGE",
      ),
    };
  }
  if (c.cancelled && !c.closed)
    return { error: new UpstreamError(`tools/call "${tool}" on server "${server}" was cancelled: the run that made it ended`, server, "UPSTREAM_ERROR") };
  // a refresh the server refused in the middle of a session: the login is gone, not the server
  if (err instanceof AuthRequiredError) return { error: new UpstreamError(err.message, server, "AUTH_REQUIRED") };
  switch (callFailure(err, c.closed)) {
    case "timeout":
      return {
        drop: keepOnTimeout ? undefined : "call timeout",
        error: new UpstreamError(
          `server "${server}" did not answer ${request} ` +
            `within ${timeoutMs}ms${keepOnTimeout ? "" : " (mcp.callTimeout); it was stopped and the next call restarts it"}`,
          server,
          "UPSTREAM_TIMEOUT",
        ),
      };
    case "closed":
      return {
        drop: "connection closed",
        error: new UpstreamError(`server "${server}" closed the connection during ${request} (${msg}); the next call restarts it`, server, "UPSTREAM_CLOSED"),
      };
    case "server":
      return { error: new UpstreamError(`server "${server}" failed ${request}: ${msg}`, server, "UPSTREAM_ERROR") };
  }
}

/** a tools/call answer that is not a result object: made an McpError (sdkError) where the call fails */
class NotAResult extends Error {}

export function notAResult(tool: string, result: unknown): Error {
  return new NotAResult(`tools/call "${tool}" answered ${JSON.stringify(result)}, not a result object`);
}

/** an McpError with the SDK's own code, as the SDK raised it for its checks: callFailure classifies it as the server's ("server") */
export async function sdkError(code: keyof typeof RpcCode, message: string): Promise<Error> {
  const { McpError, ErrorCode } = await import("@modelcontextprotocol/sdk/types.js");
  return new McpError(ErrorCode[code], message);
}
