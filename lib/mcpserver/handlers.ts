// What mcpx serves, declared once for both protocol eras: its identity, the tools of tools.ts (the
// tools/call handler: run slots, cancellation, hook notes, progress) and the upstream servers'
// resources and prompts (features.ts). server.ts hands them to the SDK v1 Server for 2025 clients,
// server-modern.ts to the SDK v2 Server for 2026-07-28 ones; each adapter only says how its era
// reaches the client (notifications, log levels, what the client declared, asking it).

import { carrierFromMeta, withTraceParent } from "../telemetry/trace-carrier.ts";
import type { CallToolResult, LoggingLevel, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { HookFrameBody } from "../exec/frames.ts";
import { gateWithAsk } from "../hooks/build-gate.ts";
import type { Gate } from "../hooks/types.ts";
import { VERSION } from "../version.ts";
import { featureHandlers, type FeatureHandlers } from "./features.ts";
import { inputSchemaOf } from "./schemas.ts";
import type { ServeClient } from "./serve-client.ts";
import { skillListing, skillTools } from "./skill-tools.ts";
import { failure, SERVED_TOOLS, type ServedTool, type ServeDeps, type ToolCall } from "./tools.ts";

export const SERVER_INFO = { name: "mcpx", version: VERSION, title: "mcpx" };
// tools change when a skill is saved (skills.ts): clients are told so
export const CAPABILITIES = { tools: { listChanged: true }, logging: {}, resources: {}, prompts: {} };
export const INSTRUCTIONS =
  "mcpx runs TypeScript against the MCP servers configured for it, through one hook gate. " +
  "mcpx_search finds the tools for a task in words and mcpx_describe gives just those tools' declarations; " +
  "mcpx_namespaces lists the servers, mcpx_types shows a server's or tool's TypeScript " +
  "declarations, mcpx_call calls one tool, and mcpx_exec runs a script that may call many " +
  "(each server is a global namespace). The servers' resources are offered as mcpx://SERVER/ENCODED-URI " +
  "and their prompts as SERVER__NAME; an artifact too large for an mcpx_exec answer is linked as " +
  "mcpx:artifact/ID, for resources/read. `_Stop` and `_PostCompact` are lifecycle hooks for " +
  "agent hosts that follow the `_` convention; a model should not call them.";

/** one served tools/call as its era's adapter delivers it */
interface CallRequest {
  name: string;
  arguments?: Record<string, unknown>;
  progressToken?: string | number;
  /** the request's `_meta`, where a caller's W3C trace context travels (traceparent, tracestate) */
  meta?: unknown;
  /** aborted when the client cancels the request */
  signal: AbortSignal;
  client: ServeClient;
  /** sends a notification tied to this request (progress) */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** sends a log notification, if the client asked for this level (a 2025 session's setLevel, a 2026 request's envelope) */
  log(level: LoggingLevel, logger: string, data: string): Promise<void>;
}

export interface ServedHandlers extends FeatureHandlers {
  listTools(): { tools: McpTool[] };
  callTool(req: CallRequest): Promise<CallToolResult>;
  /** the engine's gate, with `ask` answered by this client when it can be asked */
  gateFor(client: ServeClient): Gate;
  /** true while a tools/call is running (an idle HTTP session with a run in flight is not reaped) */
  busy(): boolean;
  /** cancels every run in flight and waits until each has ended (its process group, files) */
  cancelAll(): Promise<void>;
}

// computed once: mcpx's own schemas are static (skills are read at each listing)
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

/** the handlers of one served connection (stdio: one; HTTP: one per 2025 session, one per 2026 request) */
export function servedHandlers(deps: ServeDeps): ServedHandlers {
  /** each tools/call running, and what settles once its handler has finished (its run's files and processes gone) */
  const inFlight = new Map<AbortController, Promise<void>>();
  const gateFor = (client: ServeClient) => gateAsking(deps.engine.gate, client);
  const features = featureHandlers(deps, (f) => {
    if (f.type === "hook") reportHookFrame(f, (level, logger, data) => deps.session.log(level === "warning" ? "warn" : "info", data, logger));
  });

  // a skill file that is not offered is said once per connection, not at every listing
  const reported = new Set<string>();
  const skills = () => skillTools(deps, reported);

  async function callTool(req: CallRequest): Promise<CallToolResult> {
    const offered: readonly ServedTool[] = req.name.startsWith("skill_") ? skills() : SERVED_TOOLS;
    const tool = offered.find((t) => t.name === req.name);
    if (!tool)
      return failure(
        `unknown tool ${JSON.stringify(req.name)}: mcpx ` +
          `serves ${[...SERVED_TOOLS, ...skills()].map((t) => t.name).join(", ")}; upstream tools are reached through mcpx_call or mcpx_exec`,
      );
    const abort = new AbortController();
    // a script run takes a slot (daemon.maxRuns), held until its handler has finished, or is refused now
    const slot = tool.runsScript ? deps.runs?.start(abort.signal) : undefined;
    if (slot && "busy" in slot) return failure(`${tool.name} refused: ${slot.busy}`);
    const onAbort = () => abort.abort();
    req.signal.addEventListener("abort", onAbort);
    let finished!: () => void;
    inFlight.set(abort, new Promise<void>((resolve) => (finished = resolve)));
    // notifications go out in order and all before the result: a client drops progress for a
    // request it already has the answer to
    let sent: Promise<void> = Promise.resolve();
    const queue = (send: () => Promise<void>) => {
      sent = sent.then(send).catch(() => {});
    };
    const log = (level: LoggingLevel, logger: string, data: string) => {
      deps.session.log(level === "warning" ? "warn" : level === "notice" ? "info" : (level as "debug" | "info" | "error"), data, logger);
      queue(() => req.log(level, logger, data));
    };
    let step = 0;
    const progress = (message: string) => {
      const token = req.progressToken;
      if (token !== undefined) queue(() => req.notify("notifications/progress", { progressToken: token, progress: ++step, message }));
    };
    const call: ToolCall = {
      deps,
      gate: gateFor(req.client),
      client: req.client,
      signal: slot?.signal ?? abort.signal,
      hookFrame: (f) => reportHookFrame(f, log),
      progress,
      ...withTraceParent(carrierFromMeta(req.meta)),
    };
    try {
      // plugins' hooks are in force once their servers run (engine.ready)
      await deps.engine.ready;
      const result = await tool.handle(req.arguments ?? {}, call);
      await sent;
      return result;
    } catch (e) {
      // a bug must still reach the caller as a result it can read
      return failure(`mcpx ${tool.name} failed: ${(e as Error)?.stack ?? String(e)}`);
    } finally {
      inFlight.delete(abort);
      req.signal.removeEventListener("abort", onAbort);
      slot?.done();
      finished();
    }
  }

  return {
    ...features,
    listTools: () => ({ tools: [...listTools(), ...skills().map(skillListing)] }),
    callTool,
    gateFor,
    busy: () => inFlight.size > 0,
    async cancelAll() {
      // waited for, not only cancelled: a process that exits with a run still ending leaves its
      // socket and handoff file behind (and, for a sandboxed run, the handoff's secrets on disk)
      const running = [...inFlight.values()];
      for (const a of inFlight.keys()) a.abort();
      await Promise.all(running);
    },
  };
}

/**
 * The engine's gate, with `ask` answered by the person behind the client when the client can be
 * asked (elicitation, form mode); without it an `ask` refuses, as the dial says it must where
 * nobody can answer.
 */
function gateAsking(gate: Gate, client: ServeClient): Gate {
  const elicitation = client.capabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  const formOk = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  const request = client.request;
  if (!formOk || !request) return gate;
  const ask = async (question: string): Promise<boolean> => {
    try {
      const r = await request("elicitation/create", {
        message: question,
        requestedSchema: { type: "object", properties: { allow: { type: "boolean", title: "Allow", description: question } }, required: ["allow"] },
      });
      return r.action === "accept" && (r.content as { allow?: unknown } | undefined)?.allow === true;
    } catch {
      return false; // an answer that never came is not a yes
    }
  };
  return gateWithAsk(gate, ask);
}

/** a hook frame of a served call, where the caller and the operator can see it */
function reportHookFrame(f: HookFrameBody, log: (level: LoggingLevel, logger: string, data: string) => void): void {
  const who = `hook ${f.name ?? `${f.on}.${f.phase}`}`;
  for (const a of f.advice ?? []) log("notice", who, a);
  if (f.failed) log("warning", who, `failed: ${f.failed}`);
  if (f.dropped?.length) log("info", who, `dropped: ${f.dropped.join("; ")}`);
}
