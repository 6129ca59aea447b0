// What mcpx resource and mcpx prompt share: the server named on the command line (unknown: exit 2
// with a did-you-mean, nothing started), and an engine whose server.start and resource.read /
// prompt.get hooks show their advice on stderr as mcpx call's do.

import { UsageError } from "../lib/errors/usage-error.ts";
import type { Frame } from "../lib/exec/frames.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";
import { runContext } from "../lib/hooks/run-context.ts";
import { renderHookNotes } from "../lib/render/frames-to-cli.ts";
import { terminalAsker } from "../lib/session/ask.ts";
import { terminalAnswerer } from "../lib/session/terminal-answers.ts";
import { openEngine, type Engine } from "../lib/session/engine.ts";
import type { Session } from "../lib/session/session.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { statusLine } from "../lib/util/status-line.ts";
import type { CommandName } from "./commands.ts";

/** the server a command names: configured (or ad hoc), else a usage error (exit 2); one withheld from an untrusted file is its own error */
export function namedServer(session: Session, server: string | undefined, usage: string): string {
  if (!server) throw new UsageError(`usage: ${usage}`);
  const withheld = session.config.broken[server];
  if (withheld?.untrusted && !session.config.servers[server]) throw withheld.error;
  if (!session.config.servers[server] && !withheld) {
    const names = Object.keys(session.config.servers);
    throw new UsageError(`unknown server "${server}"${suggest(server, names)}: configured servers are ${names.join(", ") || "none"} (see mcpx ls)`);
  }
  return server;
}

/** runs `work` with an engine, hook frames rendered on stderr as they come; the engine is closed after */
export async function withEngine<T>(session: Session, command: CommandName, work: (engine: Engine, push: (f: Frame) => void) => Promise<T>): Promise<T> {
  // every hook in force runs: none may be an untrusted file's (exit 2)
  refuseUntrusted(session.trust, command);
  // the remote setting covers run, exec, call, ls and types; said rather than dropped in silence
  if (session.get("remote"))
    session.log(
      "warn",
      `remote is on (${session.settings.get("remote")!.origin}), but mcpx ${command} runs here: the daemon serves no ${command} requests yet`,
    );
  const engine = openEngine(session, {
    calls: hookCalls(session),
    ask: terminalAsker(),
    answers: terminalAnswerer(session.env),
    status: statusLine(session.env),
  });
  const push = (f: Frame) => {
    if (f.type === "hook") renderHookNotes(f, (level, message, source) => session.log(level, message, source));
  };
  try {
    return await runContext.run({ hookFrame: (f) => push({ type: "hook", ...f }) }, () => work(engine, push));
  } finally {
    await engine.close();
  }
}
