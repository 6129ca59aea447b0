// The tools `mcpx serve` offers, one table: name, words for the agent, the valibot schema its input
// schema is generated from, and the handler. Every failure is a result with isError and a message
// that says what to do next, never a protocol error: the model reading it can correct itself.

import type { TraceCarrier } from "../telemetry/tap.ts";
import { serverDefaultOrigins, spliceRequestPhases, withServerDefaults } from "../exec/server-defaults.ts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type * as v from "valibot";
import { renderToolTypes } from "../codegen/declarations.ts";
import { namespaceBindings } from "../codegen/identifiers.ts";
import { resolveName } from "../mcp/tool-names.ts";
import type { Frame, HookFrameBody } from "../exec/frames.ts";
import { callThroughGate } from "../exec/gated-call.ts";
import type { ExecOptions } from "../exec/options-schema.ts";
import type { Gate } from "../hooks/types.ts";
import type { ServeClient } from "./serve-client.ts";
import { runContext } from "../hooks/run-context.ts";
import { asCallResult } from "../mcp/tool.ts";
import type { Engine } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import type { RuntimeSource } from "../runtime/ready-runtime.ts";
import { refusedField } from "../trust/door-authority.ts";
import { isPlainObject } from "../util/json-type.ts";
import { agentCompact, agentStop, hookToolText } from "./agent-hooks.ts";
import { runForAgent } from "./agent-run.ts";
import { gateWithCallLog } from "../approvals/call-log.ts";
import { pausedRun, prepareRun } from "../approvals/exec-run.ts";
import {
  McpAgentHookArgsSchema,
  McpCallArgsSchema,
  McpDescribeArgsSchema,
  McpExecArgsSchema,
  McpNamespacesArgsSchema,
  McpSaveSkillArgsSchema,
  McpSearchArgsSchema,
  McpTypesArgsSchema,
  parseToolArgs,
} from "./schemas.ts";
import type { ClientAsks } from "./client-asks.ts";
import { agentSessionLive, type AgentSession } from "./agent-session.ts";
import { describeTool, searchTool } from "./search-tools.ts";
import { saveSkill } from "./skills.ts";

/** what every handler works with: the engine (pool, gate, bus) and the session (settings, dirs, log) */
export interface ServeDeps {
  engine: Engine;
  session: Session;
  /** the daemon's runtime kept started for the next run (mcpx serve has none) */
  runtimes?: RuntimeSource;
  /** where a tool with runsScript takes its slot (daemon.maxRuns; lib/daemon/runs.ts) */
  runs?: RunSlots;
  /** mcpx serve: what upstream servers ask is forwarded to this connection's client (client-asks.ts) */
  clientAsks?: ClientAsks;
  /** the agent's session: its workspace and the owner of the approvals its runs pause (agent-session.ts) */
  agent?: AgentSession;
}

/** lib/daemon/runs.ts's Runs, as a served tool takes a slot in it: a run's handle, or why there is none */
export interface RunSlots {
  start(signal: AbortSignal): { signal: AbortSignal; done(): void } | { busy: string };
}

/** one tools/call as a handler sees it */
export interface ToolCall {
  deps: ServeDeps;
  /** the engine's gate, with `ask` wired to the client's elicitation when it offers that */
  gate: Gate;
  /** the client that sent this call, where it can be asked (serve-client.ts) */
  client: ServeClient;
  /** aborted when the client cancels the request or the server shuts down */
  signal: AbortSignal;
  /** a hook frame of this call: advice, failures and dropped keys reach stderr and the MCP log */
  hookFrame(f: HookFrameBody): void;
  /** a progress notification, when the client asked for them (a progressToken): long runs stay alive */
  progress(message: string): void;
  /** the caller's W3C trace context from the request's `_meta`: a run it starts continues that trace */
  traceParent?: TraceCarrier;
}

export interface ServedTool {
  name: string;
  title: string;
  description: string;
  schema: v.GenericSchema;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /** it runs a script: it takes a slot of ServeDeps.runs, and is refused while none is free */
  runsScript?: true;
  handle(args: unknown, call: ToolCall): Promise<CallToolResult>;
}

export const SERVED_TOOLS: readonly ServedTool[] = [
  {
    name: "mcpx_exec",
    title: "Run TypeScript against the MCP servers",
    description:
      "Runs TypeScript with every configured MCP server as a global namespace (`const r = await " +
      'fake.echo({ message: "hi" })`), through mcpx\'s hook gate, with optional inline phases ' +
      "(script.before … script.suffix) and per-run script hooks. Returns the run's envelope as " +
      "structuredContent (ok, exitCode, result, stdout, stderr, logs, emits, calls, hooks, " +
      'error) and, as text, its stdout and result (output "text", the default), the envelope as ' +
      'JSON (output "json") or its frames as NDJSON (output "stream"); isError when the run ' +
      "failed. Each artifact the script made (artifact(name, data, { mime })) follows the text, in " +
      "order: text as text, an image or audio as such, other bytes as an embedded resource; one that " +
      "does not fit in the answer is a resource_link to read with resources/read. " +
      "Use mcpx_search and mcpx_describe (or mcpx_namespaces and mcpx_types) to see what the servers offer. " +
      ('Sandboxed by default (exec.sandbox auto or on; ask with sandbox "on"): the code runs ' +
        "on Deno and can call the servers' tools (through the hook gate), compute, log, emit and " +
        "return a value, and read the variables given in env; it cannot read or write any other " +
        "file, open network connections, start processes, read the server's environment or load " +
        "native code (FFI), and imports of packages are limited to what the project has installed; " +
        "a forbidden operation throws a NotCapable error. Unsandboxed (the server's exec.sandbox " +
        "is off, said on its stderr at start), the code runs with all the access of the user " +
        "running mcpx: files, network, processes, environment."),
    schema: McpExecArgsSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    runsScript: true,
    handle: execTool,
  },
  {
    name: "mcpx_call",
    title: "Call one upstream tool",
    description:
      "Calls one tool of a configured MCP server through mcpx's hook gate (call hooks may " +
      "refuse it, change its arguments or its result) and returns the tool's result; isError " +
      "when the tool failed or a hook refused the call.",
    schema: McpCallArgsSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    handle: callTool,
  },
  {
    name: "mcpx_namespaces",
    title: "List the MCP servers",
    description:
      "Lists the configured MCP servers: each one's name, the identifier a script uses for it " +
      "(a global namespace unless that name is taken), and how many tools it offers (starting " +
      "servers that are not running yet).",
    schema: McpNamespacesArgsSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    handle: namespacesTool,
  },
  {
    name: "mcpx_types",
    title: "TypeScript declarations of a server or tool",
    description:
      "Returns the TypeScript declarations a script sees for one server (its namespace with " +
      "every tool's signature, argument and result types) or for one of its tools.",
    schema: McpTypesArgsSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    handle: typesTool,
  },
  {
    name: "mcpx_search",
    title: "Find the tools for a task",
    description:
      "Finds the tools that best fit what you want to do, in words, across every configured MCP server " +
      "(ranked by their names, parameters and descriptions; no model involved), best first: each as " +
      "SERVER.TOOL with the one line a script calls it by and its description's first line. " +
      "mcpx_describe then gives just those tools' TypeScript declarations.",
    schema: McpSearchArgsSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    handle: (args, call) => searchTool(args, call.deps.engine.pool),
  },
  {
    name: "mcpx_describe",
    title: "TypeScript declarations of some tools",
    description:
      'Returns the TypeScript declarations (arguments, result, doc comments) of just the tools named, as SERVER.TOOL ("filesystem.write_file"), ' +
      "across servers; an unknown name is an error naming the nearest tool there is.",
    schema: McpDescribeArgsSchema,
    annotations: { readOnlyHint: true, openWorldHint: true },
    handle: (args, call) => describeTool(args, call.deps.engine.pool),
  },
  {
    name: "mcpx_save_skill",
    title: "Save a skill: a script that becomes a tool",
    description:
      "Saves TypeScript as .mcpx/skills/NAME.ts, offered from then on as the tool skill_NAME with your description " +
      "and input schema (the tool list changes). A call runs its default export with the tool's arguments " +
      "as mcpx_exec runs code: sandboxed by the server's default, every upstream call through the hook gate. " +
      "Saving a name that exists replaces that skill.",
    schema: McpSaveSkillArgsSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handle: async (args, call) => saveSkill(args, call.deps.session),
  },
  {
    name: "_Stop",
    title: "Lifecycle hook: may the agent stop?",
    description:
      "Agent-host lifecycle hook (the `_` convention): call it when the model wants to end its " +
      "turn. Empty text = no objection; otherwise a JSON array of {hook, server, text} " +
      "objections from mcpx's agent.stop hooks and allowlisted servers' _Stop tools, and the agent should carry on.",
    schema: McpAgentHookArgsSchema,
    handle: async (args, call) => {
      const bad = parseToolArgs("_Stop", McpAgentHookArgsSchema, args);
      if (!bad.ok) return failure(bad.message);
      return text(hookToolText((await agentStop(call.gate, call.deps.engine.pool, call.hookFrame)).texts));
    },
  },
  {
    name: "_PostCompact",
    title: "Lifecycle hook: context was compacted",
    description:
      "Agent-host lifecycle hook (the `_` convention): call it after compacting the context. " +
      "Empty text = nothing to re-inject; otherwise a JSON array of {hook, server, text} to put " +
      "back into the fresh context, from mcpx's agent.compact hooks and allowlisted servers' _PostCompact tools.",
    schema: McpAgentHookArgsSchema,
    handle: async (args, call) => {
      const bad = parseToolArgs("_PostCompact", McpAgentHookArgsSchema, args);
      if (!bad.ok) return failure(bad.message);
      return text(hookToolText((await agentCompact(call.gate, call.deps.engine.pool, call.hookFrame)).texts));
    },
  },
];

async function execTool(sent: unknown, call: ToolCall): Promise<CallToolResult> {
  const door = "the mcpx_exec arguments";
  // a resume is the paused run's request again, with its call log (lib/approvals/exec-run.ts)
  const agent = call.deps.agent;
  const by = agent ? { id: agent.id, pid: process.pid, live: agentSessionLive } : undefined;
  const prepared = isPlainObject(sent) ? prepareRun(sent, call.deps.session.env, by) : undefined;
  if (prepared && !prepared.ok) return failure(prepared.message);
  if (prepared) sent = prepared.args;
  // a null or "-" phase line splices the server's own lines in there, before anything is validated
  const spliced = isPlainObject(sent) ? spliceRequestPhases(sent, call.deps.session, door) : undefined;
  const args: unknown = spliced?.raw ?? sent;
  const parsed = parseToolArgs("mcpx_exec", McpExecArgsSchema, args);
  if (!parsed.ok) return failure(parsed.message);
  if (typeof (parsed.value as { source?: unknown }).source !== "string")
    return failure('invalid arguments for mcpx_exec: it needs "source" (the script to run), or "resume" (a paused run\'s approval id)');
  // an MCP client is an agent: it may set only what code in the sandbox could do itself
  const refused = refusedField("agent", args as Record<string, unknown>);
  if (refused) return failure(`mcpx_exec refused ${refused}`);
  prepared?.consume();
  const { session } = call.deps;
  const opts = withServerDefaults(args as Record<string, unknown>, parsed.value as ExecOptions, session);
  const { envelope, answer } = await runForAgent(opts, call, {
    output: opts.output ?? "text",
    ...(prepared ? { gate: gateWithCallLog(call.gate, prepared.log) } : {}),
    phaseOrigins: serverDefaultOrigins(args as Record<string, unknown>, parsed.value as ExecOptions, session, door, spliced?.origins),
  });
  const paused = prepared && pausedRun(prepared.log, prepared.args, session.env, session.get("approvals.ttl"), by);
  if (paused) return { content: [{ type: "text", text: paused.text }], structuredContent: { pending: paused.pending }, isError: false };
  return { content: answer.content, ...(answer.structured ? { structuredContent: answer.structured } : {}), isError: !envelope.ok };
}

async function callTool(args: unknown, call: ToolCall): Promise<CallToolResult> {
  const parsed = parseToolArgs("mcpx_call", McpCallArgsSchema, args);
  if (!parsed.ok) return failure(parsed.message);
  const { server, tool, args: toolArgs } = parsed.value as v.InferOutput<typeof McpCallArgsSchema>;
  const push = (f: Frame) => {
    if (f.type === "hook") {
      const { type: _t, ...body } = f;
      call.hookFrame(body);
    }
  };
  // server.start hooks fired by this call report here, as they do for `mcpx call`
  const answer = await runContext.run({ door: "mcp", hookFrame: call.hookFrame }, () =>
    callThroughGate(call.deps.engine, call.gate, { server, tool, args: toolArgs }, { push }),
  );
  if (!answer.ok) {
    const error = { ...answer.error, message: forAgent(answer.error.message) };
    return { content: [{ type: "text", text: error.message }], structuredContent: { error } as Record<string, unknown>, isError: true };
  }
  const result = asToolResult(answer.value);
  const max = call.deps.session.get("mcp.maxAnswer");
  const bytes = Buffer.byteLength(JSON.stringify(result));
  // an upstream result has no shape mcpx could cut without changing what the tool said: it is refused whole
  if (bytes > max)
    return failure(
      `${server}.${tool} answered ${bytes} bytes, more than mcp.maxAnswer (${max} bytes) lets this server send in one answer: ` +
        `call it from mcpx_exec and return only the part you need, or raise mcp.maxAnswer (MCPX_MCP_MAX_ANSWER) where the server runs`,
    );
  return result;
}

/**
 * An error's advice, as an agent can follow it: it has no shell to run `mcpx ls` in, but the door's
 * own tools (mcpx_namespaces, mcpx_types) answer the same questions.
 */
function forAgent(message: string): string {
  return message
    .replace(/run `mcpx ls ([^`]+)` to see its tools/g, (_m, server: string) => `mcpx_types {"server": ${JSON.stringify(server)}} lists its tools`)
    .replace(/; see mcpx ls\)/g, "; mcpx_namespaces lists them)");
}

/** a call's value as a tools/call result: an ok answer never carries isError (a hook may have applied one) */
function asToolResult(value: unknown): CallToolResult {
  const { isError: _e, ...rest } = asCallResult(value);
  return rest as CallToolResult;
}

async function namespacesTool(args: unknown, call: ToolCall): Promise<CallToolResult> {
  const parsed = parseToolArgs("mcpx_namespaces", McpNamespacesArgsSchema, args);
  if (!parsed.ok) return failure(parsed.message);
  const { pool } = call.deps.engine;
  const names = pool.names();
  // listed concurrently, reported in config order; hook tools (`_` names) are never counted
  const listed = await Promise.all(
    names.map(async (name) => {
      try {
        return { name, tools: (await pool.visibleTools(name)).length };
      } catch (e) {
        return { name, error: (e as Error).message };
      }
    }),
  );
  const bindings = namespaceBindings(names);
  const servers = listed.map((s, i) => {
    const b = bindings[i]!;
    return {
      name: s.name,
      identifier: b.identifier,
      global: b.hiddenBecause === undefined,
      ...(b.hiddenBecause ? { hiddenBecause: b.hiddenBecause } : {}),
      ...("error" in s ? { error: s.error } : { tools: s.tools }),
    };
  });
  const lines = servers.map(
    (s) => `${s.name}\t${s.global ? s.identifier : `tools[${JSON.stringify(s.name)}]`}\t${"error" in s ? `error: ${s.error}` : `${s.tools} tools`}`,
  );
  return {
    content: [{ type: "text", text: lines.length ? lines.join("\n") : "no MCP servers are configured (mcpServers in .mcpx.json)" }],
    structuredContent: { servers },
    isError: servers.some((s) => "error" in s),
  };
}

async function typesTool(args: unknown, call: ToolCall): Promise<CallToolResult> {
  const parsed = parseToolArgs("mcpx_types", McpTypesArgsSchema, args);
  if (!parsed.ok) return failure(parsed.message);
  const { server: requested, tool } = parsed.value as v.InferOutput<typeof McpTypesArgsSchema>;
  const { pool } = call.deps.engine;
  const names = pool.names();
  const server = resolveName(requested, names);
  if (server === undefined)
    return failure(`unknown server ${JSON.stringify(requested)}: configured servers are ${names.join(", ") || "none"} (mcpx_namespaces lists them)`);
  try {
    return text(renderToolTypes({ name: server, tools: await pool.visibleTools(server) }, tool));
  } catch (e) {
    return failure((e as Error).message);
  }
}

function text(t: string): CallToolResult {
  return { content: [{ type: "text", text: t }] };
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
