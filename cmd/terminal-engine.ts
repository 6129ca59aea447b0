// The engine of a command that runs a script or calls a tool from this terminal (`mcpx run`, `exec`,
// `call`): its hooks' own calls, telemetry where it is configured, and the user at this terminal to
// ask (an approval) and answer for (elicitation), with its status line.

import { hookCalls } from "../lib/exec/hook-calls.ts";
import { terminalAsker } from "../lib/session/ask.ts";
import { openEngine, type Engine } from "../lib/session/engine.ts";
import type { Session } from "../lib/session/session.ts";
import { terminalAnswerer } from "../lib/session/terminal-answers.ts";
import { telemetryTaps } from "../lib/telemetry/otel-load.ts";
import { statusLine } from "../lib/util/status-line.ts";

export async function terminalEngine(session: Session): Promise<Engine> {
  return openEngine(session, {
    calls: hookCalls(session),
    taps: await telemetryTaps(session),
    ask: terminalAsker(),
    answers: terminalAnswerer(session.env),
    status: statusLine(session.env),
  });
}
