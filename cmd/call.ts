// mcpx call NS.tool '{json}': one tools/call, through the same name resolution a script uses.

import { loadUnwrap } from "../lib/runtime/launcher-files.ts";
import { readCachedTools } from "../lib/mcp/tool-list-cache.ts";
import { oneCall, type CallInput, type CallNote } from "../lib/exec/one-call.ts";
import type { CallAnswer } from "../lib/runtime/runner.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import type { Session } from "../lib/session/session.ts";
import { renderHookNotes } from "../lib/render/frames-to-cli.ts";
import { describeContent, mixedContent, writeBinaries } from "../lib/render/call-content.ts";
import { out } from "../lib/util/fd-write.ts";
import { trace } from "../lib/util/trace.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { adHoc, adHocName, refuseAdHocRemote, sessionWithAdHoc } from "./ad-hoc.ts";
import { CALL_FLAGS } from "./own-flags.ts";
import { callTarget } from "../lib/mcp/tool-names.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { writeSpawnNote } from "../lib/mcp/early-server.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import type { CallReply } from "../lib/daemon/call-route.ts";
import { askDaemon } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { terminalEngine } from "./terminal-engine.ts";
import { remoteHooks, remoteRequestSettings } from "../lib/exec/remote.ts";
import { interruption } from "../lib/process/interruption.ts";

export default defineCommand({
  meta: { name: "call", description: COMMAND_DESCRIPTIONS.call },
  args: cittyArgs(
    "call",
    CALL_FLAGS,
    { name: "target", description: "SERVER.TOOL, or TOOL when one server is in scope (an ad-hoc one, or a config's only one)" },
    { name: "args", description: "key=value (coerced by the tool's input schema), key:=JSON, one JSON object, or - (a JSON object on stdin)" },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("call", rawArgs, CALL_FLAGS);
    const [target, ...items] = parsed.positionals;
    if (!target) throw new UsageError(`usage: ${USAGE}`);
    const session = sessionWithAdHoc(parsed);
    // a bare tool name is the one server's in scope: the ad-hoc server's, else a config's only one
    const named = adHoc(parsed.own) ? adHocName(session) : undefined;
    const resolved = callTarget(target, named ? [named] : [...new Set([...Object.keys(session.config.servers), ...Object.keys(session.config.broken)])]);
    if (typeof resolved === "string") throw new UsageError(resolved);
    const { server, tool } = resolved;
    // a server that is not configured is a wrong request, as for `mcpx ls NAME` (exit 2): nothing started
    if (!wantsDaemon(parsed.own, session) && !session.config.servers[server] && !session.config.broken[server]) {
      const names = Object.keys(session.config.servers);
      throw new UsageError(`unknown server "${server}"${suggest(server, names)}: configured servers are ${names.join(", ") || "none"} (see mcpx ls)`);
    }
    const input = await argumentsInput(items);
    // a call passes every hook in force: none may be an untrusted file's (exit 2)
    refuseUntrusted(session.trust, "call");
    // the server it names, withheld from an untrusted file, is needed: its error (exit 2), not a failed call (exit 1)
    const withheld = session.config.broken[server];
    if (withheld?.untrusted && !session.config.servers[server]) throw withheld.error;
    trace("config");
    const remote = wantsDaemon(parsed.own, session);
    if (remote) refuseAdHocRemote(parsed.own);
    const log = (n: CallNote) =>
      n.type === "warn" ? session.log("warn", n.message) : renderHookNotes(n, (level, message, source) => session.log(level, message, source));
    // the unwrapping code loads while the call is under way (from the runtime's own text)
    const unwrap = parsed.own.json ? undefined : loadUnwrap();
    unwrap?.catch(() => {});
    const shown = { unwrap, outFile: parsed.own["out-file"] as string | undefined, what: target };
    // SIGINT/SIGTERM end the call with 130: the finally below closes the engine, which tells the server
    // the call is cancelled and ends it (with --remote, the request to the daemon is dropped)
    const signals = interruption(remote ? "the call to the daemon was dropped" : "the call was cancelled and its server ended");
    if (remote) await show(await Promise.race([remoteCall(session, server, tool, input, log), signals.interrupted]).finally(signals.stop), shown);
    else {
      const engine = await terminalEngine(session);
      try {
        // the same gate a script's call passes: call hooks fire for `mcpx call` too, and a server
        // start it causes shows its server.start hooks' advice and failures here
        trace("engine");
        // the tool-list cache may spare the call a tools/list, unless a hook is in force (hooks see
        // the live list's annotations): lib/exec/cached-call.ts
        const cfg = session.config.servers[server];
        const unhooked = engine.hooksInForce().length === 0;
        const cached = cfg && unhooked ? readCachedTools(session.cacheDir, cfg) : undefined;
        const answer = await Promise.race([oneCall(engine, server, tool, input, log, "cli", cached), signals.interrupted]);
        trace("call answered");
        // how this server started, for the next call to start it before reading config (lib/mcp/early-server.ts)
        if (cfg?.kind === "stdio" && unhooked && engine.pool.started(server) && !adHoc(parsed.own))
          writeSpawnNote(
            { server, cwd: session.cwd, config: parsed.own.config as string | undefined, env: session.env },
            { command: cfg.command, args: cfg.args, env: cfg.env, cwd: cfg.cwd, consulted: [...session.consulted] },
          );
        // shown before the server is ended: the answer is not held back by the server's exit
        await show(answer, shown);
      } finally {
        await engine.close();
        signals.stop();
        trace("engine closed");
      }
    }
  },
});

/**
 * prints the answer as asked (--json: the raw result; else unwrapped, with a result that is not all
 * text described item by item), writes its binary items to -o FILE, or throws the failure, which exits 1
 */
async function show(
  answer: CallAnswer,
  { unwrap, outFile, what }: { unwrap: Promise<(raw: unknown) => unknown> | undefined; outFile: string | undefined; what: string },
): Promise<void> {
  if (!answer.ok) {
    if (!unwrap) out(JSON.stringify((answer.error.data as { raw?: unknown })?.raw ?? { error: answer.error }, null, 2) + "\n");
    // every failure of the call exits 1 (a tool error, an unknown tool or server, an upstream
    // failure or a refusal) and is printed like any error that ends a command
    throw new McpxError(answer.error.message, "TOOL_ERROR");
  }
  const written = outFile === undefined ? undefined : writeBinaries(answer.value, outFile, what);
  if (!unwrap) return out(JSON.stringify(answer.value, null, 2) + "\n");
  const mixed = mixedContent(answer.value);
  const value = (await unwrap)(answer.value);
  // unwrap keeps the raw shape for a content list that is not all text (structuredContent wins)
  const text = mixed && value === answer.value ? describeContent(mixed, written) : value;
  if (text !== undefined && text !== null) out(typeof text === "string" ? (text.endsWith("\n") ? text : text + "\n") : JSON.stringify(text, null, 2) + "\n");
}

// --remote: the daemon finds the tool, coerces and checks the arguments and runs the call through its
// gate (POST /v1/call); its notes are shown here as they would be locally, and its answer printed
// by the same code. Arguments it refuses end this command with their own code, as locally.
async function remoteCall(session: Session, server: string, tool: string, input: CallInput, log: (n: CallNote) => void): Promise<CallAnswer> {
  // the call guards in force here travel with it (lib/exec/remote.ts): a local guard is never dropped
  const hooks = remoteHooks(session, ["call"]);
  // and the limits that bind this call alone (the hook policy stays the daemon's: lib/exec/remote.ts)
  const settings = remoteRequestSettings(session, "call");
  const body = {
    ...(input.kind === "json" ? { server, tool, args: input.args } : { server, tool, items: input.items }),
    ...(hooks.length ? { hooks } : {}),
    ...(Object.keys(settings).length ? { settings } : {}),
  };
  const reply = await askDaemon<CallReply>(session, "call", "POST", "/v1/call", body);
  for (const n of reply.notes) log(n);
  return reply.answer!;
}

const USAGE = 'mcpx call SERVER.TOOL|TOOL [key=value | key:=JSON …] | [\'{"json": "args"}\'] | - (the arguments object on stdin)';

/** the arguments as typed: one JSON object (an argument or stdin), or key=value items to coerce once the tool's schema is known */
async function argumentsInput(items: string[]): Promise<CallInput> {
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
