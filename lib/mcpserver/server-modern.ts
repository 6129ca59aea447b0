// mcpx as an MCP server to 2026-07-28 clients: the SDK v2 low-level Server, serving the same
// handlers as server.ts serves 2025 clients (handlers.ts). The v2 entries own what the era changes
// on the wire: `server/discover` from these capabilities and instructions, the `_meta` envelope of
// every request, `ttlMs`/`cacheScope` on lists, the per-request log level. A 2026 request cannot
// be answered by a request to the client (that era asks through input_required results), so here
// the client has no `request` and an `ask` hook refuses, as it does where nobody can answer.

import { CLIENT_CAPABILITIES_META_KEY, Server, type ServerContext } from "@modelcontextprotocol/server";
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO, servedHandlers, type ServedHandlers } from "./handlers.ts";
import type { ServeClient } from "./serve-client.ts";
import type { ServeDeps } from "./tools.ts";

export interface ModernServerHandle {
  server: Server;
  busy(): boolean;
  /** cancels every run in flight (their process groups end) and closes the instance */
  close(): Promise<void>;
}

export function createModernServer(deps: ServeDeps, handlers: ServedHandlers = servedHandlers(deps)): ModernServerHandle {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  const clientOf = (ctx: ServerContext): ServeClient => ({
    capabilities: () =>
      ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined) ??
      (server.getClientCapabilities() as Record<string, unknown> | undefined),
  });
  // the results are the 2025 shapes the handlers build; the v2 codec writes them in this era's encoding
  const answer = <T>(value: T) => value as never;

  server.setRequestHandler("tools/list", () => answer(handlers.listTools()));
  server.setRequestHandler("resources/list", async () => answer(await handlers.listResources()));
  server.setRequestHandler("resources/templates/list", async () => answer(await handlers.listResourceTemplates()));
  server.setRequestHandler("prompts/list", async () => answer(await handlers.listPrompts()));
  server.setRequestHandler("resources/read", async (req, ctx) => answer(await handlers.readResource(req.params, handlers.gateFor(clientOf(ctx)))));
  server.setRequestHandler("prompts/get", async (req, ctx) => answer(await handlers.getPrompt(req.params, handlers.gateFor(clientOf(ctx)))));
  server.setRequestHandler("tools/call", async (req, ctx) =>
    answer(
      await handlers.callTool({
        name: req.params.name,
        arguments: req.params.arguments,
        progressToken: (ctx.mcpReq._meta?.progressToken ?? req.params._meta?.progressToken) as string | number | undefined,
        // the envelope's keys and the request's own: a caller's trace context may travel in either
        meta: { ...(req.params._meta as object | undefined), ...(ctx.mcpReq._meta as object | undefined) },
        signal: ctx.mcpReq.signal,
        client: clientOf(ctx),
        notify: (method, params) => ctx.mcpReq.notify({ method, params }),
        // the SDK applies this era's rule: only at or above the request's envelope logLevel, none without one
        log: (level, logger, data) => ctx.mcpReq.log(level, data, logger),
      }),
    ),
  );

  return {
    server,
    busy: handlers.busy,
    async close() {
      await handlers.cancelAll();
      await server.close().catch(() => {});
    },
  };
}
