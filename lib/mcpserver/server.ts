// mcpx as an MCP server to 2025 clients: the SDK v1 low-level Server (so input schemas are the raw
// JSON Schema generated from valibot), serving handlers.ts over any transport. One Server per
// client connection (stdio: one; Streamable HTTP: one per session), all sharing one engine: the
// pool, the bus and the hook gate every call passes. 2026-07-28 clients meet server-modern.ts,
// which serves the very same handlers.

import "../mcp/zod-interpreted.ts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO, servedHandlers, type ServedHandlers } from "./handlers.ts";
import type { ServeClient } from "./serve-client.ts";
import { onSkillsChanged } from "./skills.ts";
import type { ServeDeps } from "./tools.ts";

export type { ServeDeps };

export interface McpServerHandle {
  server: Server;
  /** true while a tools/call is running (an idle HTTP session with a run in flight is not reaped) */
  busy(): boolean;
  /** cancels every run in flight (their process groups end) and closes the connection */
  close(): Promise<void>;
}

/** MCP's logging levels, least to most severe: a client's logging/setLevel hides what is below it */
const LOG_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** the result schema of each request mcpx may send a 2025 client */
const CLIENT_RESULTS = {
  "elicitation/create": ElicitResultSchema,
  "sampling/createMessage": CreateMessageResultSchema,
  "roots/list": ListRootsResultSchema,
} as const;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export function createMcpServer(deps: ServeDeps, handlers: ServedHandlers = servedHandlers(deps)): McpServerHandle {
  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  let minLevel: LoggingLevel | undefined;
  const clientOf = (extra: Extra): ServeClient => ({
    capabilities: () => server.getClientCapabilities() as Record<string, unknown> | undefined,
    request: (method, params) => {
      const schema = CLIENT_RESULTS[method as keyof typeof CLIENT_RESULTS];
      if (!schema) throw new Error(`mcpx does not send ${method} to a client (it sends ${Object.keys(CLIENT_RESULTS).join(", ")})`);
      return extra.sendRequest({ method, params } as ServerRequest, schema) as Promise<Record<string, unknown>>;
    },
  });

  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    minLevel = req.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => handlers.listTools());
  // the upstream servers' resources and prompts, under names two servers cannot share (features.ts)
  server.setRequestHandler(ListResourcesRequestSchema, () => handlers.listResources());
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => handlers.listResourceTemplates());
  server.setRequestHandler(ListPromptsRequestSchema, () => handlers.listPrompts());
  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => handlers.readResource(req.params, handlers.gateFor(clientOf(extra))));
  server.setRequestHandler(GetPromptRequestSchema, (req, extra) => handlers.getPrompt(req.params, handlers.gateFor(clientOf(extra))));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    handlers.callTool({
      name: req.params.name,
      arguments: req.params.arguments,
      progressToken: req.params._meta?.progressToken,
      meta: req.params._meta,
      signal: extra.signal,
      client: clientOf(extra),
      // tied to this request, so over HTTP it travels on the request's own stream
      notify: (method, params) => extra.sendNotification({ method, params } as ServerNotification),
      log: async (level, logger, data) => {
        if (minLevel !== undefined && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(minLevel)) return;
        await extra.sendNotification({ method: "notifications/message", params: { level, logger, data } });
      },
    }),
  );

  // a saved skill is a new tool for every client connected (it may not be this connection's)
  const stopListening = onSkillsChanged(() => void server.sendToolListChanged().catch(() => {}));

  return {
    server,
    busy: handlers.busy,
    async close() {
      stopListening();
      await handlers.cancelAll();
      await server.close().catch(() => {});
    },
  };
}
