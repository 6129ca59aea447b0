// mcpx call NS.tool '{json}': one tools/call, through the same name resolution a script uses.

import { loadUnwrap } from "../lib/exec/launcher-files.ts";
import type { Frame } from "../lib/exec/frames.ts";
import { gatedCall } from "../lib/exec/gated-call.ts";
import { runContext } from "../lib/hooks/run-context.ts";
import { terminalAsker } from "../lib/session/ask.ts";
import { openEngine } from "../lib/session/engine.ts";
import type { Session } from "../lib/session/session.ts";
import type { Tool } from "../lib/mcp/tool.ts";
import { renderHookNotes } from "../lib/render/frames-to-cli.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { out } from "../lib/util/fd-write.ts";
import { UsageError, parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { AD_HOC_FLAGS, sessionWithAdHoc } from "./ad-hoc.ts";
import { findTool } from "../lib/mcp/tool-call.ts";
import { parseKeyValues } from "../lib/mcp/call-args.ts";
import { checkArgs } from "../lib/mcp/check-args.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print the raw MCP result as JSON" },
};

export default defineCommand({
  meta: { name: "call", description: COMMAND_DESCRIPTIONS.call },
  args: cittyArgs(
    "call",
    OWN,
    { name: "target", description: "SERVER.TOOL" },
    { name: "args", description: "key=value (coerced by the tool's input schema), key:=JSON, one JSON object, or - (a JSON object on stdin)" },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("call", rawArgs, OWN);
    const [target, ...items] = parsed.positionals;
    if (!target) throw new UsageError(`usage: ${USAGE}`);
    const dot = target.indexOf(".");
    if (dot <= 0 || dot === target.length - 1) throw new UsageError(`"${target}" is not SERVER.TOOL (e.g. everything.echo)`);
    const input = await argumentsInput(items);
    const session = sessionWithAdHoc(parsed);
    const engine = openEngine(session, { ask: terminalAsker(), status: statusLine(session.env) });
    try {
      // the same gate a script's call passes: call hooks fire for `mcpx call` too, and a server
      // start it causes shows its server.start hooks' advice and failures here
      const push = (f: Frame) => showFrame(f, session);
      const server = target.slice(0, dot);
      const answer = await runContext.run({ hookFrame: (f) => push({ type: "hook", ...f }) }, async () => {
        // the arguments are read and checked against the tool's input schema before the gate: the
        // server is never called with arguments its schema refuses (an unknown tool fails here too,
        // as it would in the gate, before any call hook)
        let tool: Tool;
        try {
          tool = await findTool(engine.pool, server, target.slice(dot + 1));
        } catch (e) {
          return { ok: false as const, error: { name: (e as Error).name, message: (e as Error).message } };
        }
        const args = input.kind === "json" ? input.args : parseKeyValues(input.items, tool.inputSchema);
        const warning = await checkArgs(server, tool, args);
        if (warning) session.log("warn", warning);
        return gatedCall(engine.gate, { server, tool: tool.name, args }, { push });
      });
      if (!answer.ok) {
        if (parsed.own.json) out(JSON.stringify((answer.error.data as { raw?: unknown })?.raw ?? { error: answer.error }, null, 2) + "\n");
        // every failure of the call exits 1 (a tool error, an unknown tool or server, an upstream
        // failure or a refusal) and is printed like any error that ends a command
        throw new McpxError(answer.error.message, "TOOL_ERROR");
      } else if (parsed.own.json) out(JSON.stringify(answer.value, null, 2) + "\n");
      else {
        const value = (await loadUnwrap(session.cacheDir))(answer.value);
        if (value !== undefined && value !== null)
          out(typeof value === "string" ? (value.endsWith("\n") ? value : value + "\n") : JSON.stringify(value, null, 2) + "\n");
      }
    } finally {
      await engine.close();
    }
  },
});

const USAGE = 'mcpx call SERVER.TOOL [key=value | key:=JSON …] | [\'{"json": "args"}\'] | - (the arguments object on stdin)';

/** the arguments as typed: one JSON object (an argument or stdin), or key=value items to coerce once the tool's schema is known */
async function argumentsInput(items: string[]): Promise<{ kind: "json"; args: Record<string, unknown> } | { kind: "items"; items: string[] }> {
  // "-" reads the arguments from stdin: one argv string cannot exceed 128 KiB on Linux
  // (MAX_ARG_STRLEN), so a larger argument has no other way in
  if (items.length === 1 && items[0] === "-")
    return { kind: "json", args: parseArgsJson(await new Response(Bun.stdin.stream()).text(), "the arguments on stdin") };
  if (items.length === 1 && /^\s*\{/.test(items[0]!)) return { kind: "json", args: parseArgsJson(items[0], "the arguments") };
  const odd = items.find((i) => i === "-" || /^\s*\{/.test(i));
  if (odd !== undefined)
    throw new UsageError(
      `${odd === "-" ? "-" : "a JSON object"} cannot be mixed with other arguments: give one JSON object, - alone, or key=value items (usage: ${USAGE})`,
    );
  return { kind: "items", items };
}

function parseArgsJson(text: string | undefined, from: string): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${from} are not valid JSON (${(e as Error).message}): give an object like '{"message": "hi"}'`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new UsageError(`${from} must be a JSON object, like '{"message": "hi"}'`);
  return v as Record<string, unknown>;
}

/** hook advice and failures on stderr, as a script run shows them */
function showFrame(f: Frame, session: Session): void {
  if (f.type === "hook") renderHookNotes(f, (level, message, source) => session.log(level, message, source));
}
