// The client of one served request, as its era lets mcpx reach it: the one seam for anything that
// asks the person or the model behind the client (an `ask` hook's elicitation today; upstream
// servers' elicitation or sampling forwarded to it). server.ts builds it for 2025 connections,
// server-modern.ts for 2026-07-28 ones; every tools/call handler gets it as ToolCall.client.

export interface ServeClient {
  /** what the client declared it can do: at initialize (2025), in this request's envelope (2026) */
  capabilities(): Record<string, unknown> | undefined;
  /**
   * sends the client a request (elicitation/create, sampling/createMessage, roots/list) tied to
   * the request being served, so over HTTP it travels on that request's own stream; absent where
   * the era has no server-to-client requests (2026-07-28 asks through input_required results)
   */
  request?(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}
