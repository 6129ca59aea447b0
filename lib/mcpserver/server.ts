// mcpx as an MCP server: the SDK's low-level Server (so input schemas are the raw JSON Schema
// generated from valibot), serving the tools of tools.ts over any transport. One Server per client
// connection (stdio: one; Streamable HTTP: one per session), all sharing one engine: the pool, the
// bus and the hook gate every call passes.

import "../mcp/zod-interpreted.ts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { HookFrameBody } from "../exec/frames.ts";
import { gateWithAsk } from "../hooks/build-gate.ts";
import type { Gate } from "../hooks/types.ts";
import { VERSION } from "../version.ts";
import { inputSchemaOf } from "./schemas.ts";
import { serveFeatures } from "./features.ts";
import { failure, SERVED_TOOLS, type ServeDeps, type ToolCall } from "./tools.ts";

export type { ServeDeps };

export interface McpServerHandle {
  server: Server;
  /** true while a tools/call is running (an idle HTTP session with a run in flight is not reaped) */
  busy(): boolean;
  /** cancels every run in flight (their process groups end) and closes the connection */
  close(): Promise<void>;
}

const INSTRUCTIONS =
  "mcpx runs TypeScript against the MCP servers configured for it, through one hook gate. " +
  "mcpx_namespaces lists the servers, mcpx_types shows a server's or tool's TypeScript " +
  "declarations, mcpx_call calls one tool, and mcpx_exec runs a script that may call many " +
  "(each server is a global namespace). The servers' resources are offered as mcpx://SERVER/ENCODED-URI " +
  "and their prompts as SERVER__NAME. `_Stop` and `_PostCompact` are lifecycle hooks for " +
  "agent hosts that follow the `_` convention; a model should not call them.";

/** MCP's logging levels, least to most severe: a client's logging/setLevel hides what is below it */
const LOG_LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

// computed once: the schemas are static
let toolList: McpTool[] | undefined;
function listTools(): McpTool[] {
  toolList ??= SERVED_TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchemaOf(t.schema),
    ...(t.annotations ? { annotations: t.annotations } : {}),
  }));
  return toolList;
}

export function createMcpServer(deps: ServeDeps): McpServerHandle {
  const server = new Server(
    { name: "mcpx", version: VERSION, title: "mcpx" },
    { capabilities: { tools: {}, logging: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  /** each tools/call running, and what settles once its handler has finished (its run's files and processes gone) */
  const inFlight = new Map<AbortController, Promise<void>>();
  let minLevel: LoggingLevel | undefined;

  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    minLevel = req.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  // the upstream servers' resources and prompts, under names two servers cannot share (features.ts)
  serveFeatures(
    server,
    deps,
    (extra) => gateFor(deps, server, extra),
    (f) => {
      if (f.type === "hook") reportHookFrame(f, (level, logger, data) => deps.session.log(level === "warning" ? "warn" : "info", data, logger));
    },
  );
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const tool = SERVED_TOOLS.find((t) => t.name === req.params.name);
    if (!tool)
      return failure(
        `unknown tool ${JSON.stringify(req.params.name)}: mcpx ` +
          `serves ${SERVED_TOOLS.map((t) => t.name).join(", ")}; upstream tools are reached through mcpx_call or mcpx_exec`,
      );
    const abort = new AbortController();
    // a script run takes a slot (daemon.maxRuns), held until its handler has finished, or is refused now
    const slot = tool.runsScript ? deps.runs?.start(abort.signal) : undefined;
    if (slot && "busy" in slot) return failure(`${tool.name} refused: ${slot.busy}`);
    const onAbort = () => abort.abort();
    extra.signal.addEventListener("abort", onAbort);
    let finished!: () => void;
    inFlight.set(abort, new Promise<void>((resolve) => (finished = resolve)));
    // notifications go out in order and all before the result: a client drops progress for a
    // request it already has the answer to
    let sent: Promise<void> = Promise.resolve();
    const notify = (n: ServerNotification) => {
      // tied to this request, so over HTTP it travels on the request's own stream
      sent = sent.then(() => extra.sendNotification(n)).catch(() => {});
    };
    const log = (level: LoggingLevel, logger: string, data: string) => {
      deps.session.log(level === "warning" ? "warn" : level === "notice" ? "info" : (level as "debug" | "info" | "error"), data, logger);
      if (minLevel !== undefined && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(minLevel)) return;
      notify({ method: "notifications/message", params: { level, logger, data } });
    };
    const token = req.params._meta?.progressToken;
    let step = 0;
    const progress = (message: string) => {
      if (token !== undefined) notify({ method: "notifications/progress", params: { progressToken: token, progress: ++step, message } });
    };
    const call: ToolCall = {
      deps,
      gate: gateFor(deps, server, extra),
      signal: slot?.signal ?? abort.signal,
      hookFrame: (f) => reportHookFrame(f, log),
      progress,
    };
    try {
      // plugins' hooks are in force once their servers run (engine.ready)
      await deps.engine.ready;
      const result = await tool.handle(req.params.arguments ?? {}, call);
      await sent;
      return result;
    } catch (e) {
      // a bug must still reach the caller as a result it can read
      return failure(`mcpx ${tool.name} failed: ${(e as Error)?.stack ?? String(e)}`);
    } finally {
      inFlight.delete(abort);
      extra.signal.removeEventListener("abort", onAbort);
      slot?.done();
      finished();
    }
  });

  return {
    server,
    busy: () => inFlight.size > 0,
    async close() {
      // waited for, not only cancelled: a process that exits with a run still ending leaves its
      // socket and handoff file behind (and, for a sandboxed run, the handoff's secrets on disk)
      const running = [...inFlight.values()];
      for (const a of inFlight.keys()) a.abort();
      await Promise.all(running);
      await server.close().catch(() => {});
    },
  };
}

/**
 * The engine's gate, with `ask` answered by the person behind the client when the client can be
 * asked (elicitation, form mode); without it an `ask` refuses, as the dial says it must where
 * nobody can answer.
 */
function gateFor(deps: ServeDeps, server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Gate {
  const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  const formOk = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  if (!formOk) return deps.engine.gate;
  const ask = async (question: string): Promise<boolean> => {
    try {
      const r = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: question,
            requestedSchema: { type: "object", properties: { allow: { type: "boolean", title: "Allow", description: question } }, required: ["allow"] },
          },
        },
        ElicitResultSchema,
      );
      return r.action === "accept" && (r.content as { allow?: unknown } | undefined)?.allow === true;
    } catch {
      return false; // an answer that never came is not a yes
    }
  };
  return gateWithAsk(deps.engine.gate, ask);
}

/** a hook frame of a served call, where the caller and the operator can see it */
function reportHookFrame(f: HookFrameBody, log: (level: LoggingLevel, logger: string, data: string) => void): void {
  const who = `hook ${f.name ?? `${f.on}.${f.phase}`}`;
  for (const a of f.advice ?? []) log("notice", who, a);
  if (f.failed) log("warning", who, `failed: ${f.failed}`);
  if (f.dropped?.length) log("info", who, `dropped: ${f.dropped.join("; ")}`);
}
