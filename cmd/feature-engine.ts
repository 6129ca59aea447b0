// What mcpx resource and mcpx prompt share: the server named on the command line (unknown: exit 2
// with a did-you-mean, nothing started), an engine whose server.start and resource.read /
// prompt.get hooks show their advice on stderr as mcpx call's do, and --remote (or the remote
// setting), which sends the request to the daemon's POST /v1/resource or /v1/prompt and shows its
// hook notes here the same way. Either door answers the same value (lib/exec/one-feature.ts), which
// the command renders with the same code.

import type { PromptReply, ResourceReply } from "../lib/daemon/feature-route.ts";
import type { Thrown } from "../lib/daemon/thrown.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import type { Frame } from "../lib/exec/frames.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";
import { knownServer } from "../lib/exec/one-feature.ts";
import { remoteHooks, remoteRequestSettings } from "../lib/exec/remote.ts";
import { runContext } from "../lib/hooks/run-context.ts";
import { renderHookNotes } from "../lib/render/frames-to-cli.ts";
import { terminalAsker } from "../lib/session/ask.ts";
import { terminalAnswerer } from "../lib/session/terminal-answers.ts";
import { openEngine, type Engine } from "../lib/session/engine.ts";
import type { Session } from "../lib/session/session.ts";
import type { ParsedArgs } from "../lib/settings/flags.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { refuseAdHocRemote } from "./ad-hoc.ts";
import { askDaemon } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";

type FeatureCommand = "resource" | "prompt";
type HookFrame = Extract<Frame, { type: "hook" }>;

/**
 * the server a command names, and where the request runs: configured (or ad hoc) here, else a usage
 * error (exit 2); with --remote, the daemon's config decides (its unknown server is the same error)
 */
export function namedServer(parsed: Pick<ParsedArgs, "own">, session: Session, server: string | undefined, usage: string): { server: string; remote: boolean } {
  if (!server) throw new UsageError(`usage: ${usage}`);
  const remote = wantsDaemon(parsed.own, session);
  if (remote) refuseAdHocRemote(parsed.own);
  else knownServer(session.config, server);
  return { server, remote };
}

/** runs `work` with an engine, hook frames rendered on stderr as they come; the engine is closed after */
export async function withEngine<T>(session: Session, command: FeatureCommand, work: (engine: Engine, push: (f: Frame) => void) => Promise<T>): Promise<T> {
  // every hook in force runs: none may be an untrusted file's (exit 2)
  refuseUntrusted(session.trust, command);
  const engine = openEngine(session, {
    calls: hookCalls(session),
    ask: terminalAsker(),
    answers: terminalAnswerer(session.env),
    status: statusLine(session.env),
  });
  const push = (f: Frame) => {
    if (f.type === "hook") showHook(session, f);
  };
  try {
    return await runContext.run({ door: "cli", hookFrame: (f) => push({ type: "hook", ...f }) }, () => work(engine, push));
  } finally {
    await engine.close();
  }
}

/**
 * --remote: the request on the daemon, through its gate and the caller's own guards for the point
 * (resource.read or prompt.get: a guard in force here is carried, never dropped) and limits; the
 * daemon's hook notes are shown here, then an error its command threw is thrown with its code
 */
export async function onDaemon<R extends ResourceReply | PromptReply>(
  session: Session,
  command: FeatureCommand,
  body: Record<string, unknown>,
): Promise<Exclude<R, { thrown: Thrown }>> {
  // the hooks in force here travel: none may be an untrusted file's (exit 2), as locally
  refuseUntrusted(session.trust, command);
  const hooks = remoteHooks(session, [command === "resource" ? "resource.read" : "prompt.get"]);
  const settings = remoteRequestSettings(session, command);
  const sent = { ...body, ...(hooks.length ? { hooks } : {}), ...(Object.keys(settings).length ? { settings } : {}) };
  const reply = await askDaemon<R>(session, command, "POST", `/v1/${command}`, sent, (r) => {
    for (const n of r.notes) showHook(session, n);
  });
  // askDaemon threw a reply's `thrown`
  return reply as Exclude<R, { thrown: Thrown }>;
}

function showHook(session: Session, f: HookFrame): void {
  renderHookNotes(f, (level, message, source) => session.log(level, message, source));
}
