// mcpx call NS.tool '{json}': one tools/call, through the same name resolution a script uses.

import { loadUnwrap } from "../lib/exec/launcher-files.ts";
import type { Frame } from "../lib/exec/frames.ts";
import { gatedCall } from "../lib/exec/gated-call.ts";
import { runContext } from "../lib/hooks/run-context.ts";
import { terminalAsker } from "../lib/session/ask.ts";
import { openEngine } from "../lib/session/engine.ts";
import type { Session } from "../lib/session/session.ts";
import { renderHookNotes } from "../lib/render/frames-to-cli.ts";
import { out } from "../lib/util/fd-write.ts";
import { UsageError, parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print the raw MCP result as JSON" },
};

export default defineCommand({
  meta: { name: "call", description: COMMAND_DESCRIPTIONS.call },
  args: cittyArgs("call", OWN, { name: "target", description: "SERVER.TOOL" }, { name: "args", description: "JSON object of arguments" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("call", rawArgs, OWN);
    const [target, json, ...extra] = parsed.positionals;
    if (!target || extra.length > 0) throw new UsageError("usage: mcpx call SERVER.TOOL ['{\"json\": \"args\"}' | - (read them from stdin)]");
    const dot = target.indexOf(".");
    if (dot <= 0 || dot === target.length - 1) throw new UsageError(`"${target}" is not SERVER.TOOL (e.g. everything.echo)`);
    // "-" reads the arguments from stdin: one argv string cannot exceed 128 KiB on Linux
    // (MAX_ARG_STRLEN), so a larger argument has no other way in
    const args = parseArgsJson(json === "-" ? await new Response(Bun.stdin.stream()).text() : json, json === "-" ? "the arguments on stdin" : "the arguments");
    const session = sessionFromArgs(parsed);
    const engine = openEngine(session, { ask: terminalAsker() });
    try {
      // the same gate a script's call passes: call hooks fire for `mcpx call` too, and a server
      // start it causes shows its server.start hooks' advice and failures here
      const push = (f: Frame) => showFrame(f, session);
      const answer = await runContext.run({ hookFrame: (f) => push({ type: "hook", ...f }) }, () =>
        gatedCall(engine.gate, { server: target.slice(0, dot), tool: target.slice(dot + 1), args }, { push }),
      );
      if (!answer.ok) {
        if (parsed.own.json) out(JSON.stringify((answer.error.data as { raw?: unknown })?.raw ?? { error: answer.error }, null, 2) + "\n");
        session.log("error", answer.error.message);
        process.exitCode = 1;
      } else if (parsed.own.json) out(JSON.stringify(answer.value, null, 2) + "\n");
      else {
        const value = (await loadUnwrap(session.cacheDir))(answer.value);
        if (value !== undefined && value !== null) out(typeof value === "string" ? (value.endsWith("\n") ? value : value + "\n") : JSON.stringify(value, null, 2) + "\n");
      }
    } finally {
      await engine.close();
    }
  },
});

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
