// One run of agent code for a served tool (mcpx_exec, a skill_NAME): the serve door's sandbox,
// limits and runtimes, its frames tapped on their way into the envelope (hook notes to the
// client's log, a progress note per step), and the answer as mcpx_exec gives it: the run's text,
// then its artifacts (artifact-content.ts), each linked to the agent's session.

import type { TraceCarrier } from "../telemetry/tap.ts";
import { runLimits, sandboxContext } from "../exec/door-policy.ts";
import { collectEnvelope, type Envelope } from "../exec/envelope.ts";
import { execute, type ExecContext } from "../exec/execute.ts";
import type { Frame, HookFrameBody } from "../exec/frames.ts";
import type { OutputMode } from "../exec/options.ts";
import type { ExecOptions } from "../exec/options-schema.ts";
import type { Gate } from "../hooks/types.ts";
import { progressText, serverLogText } from "../mcp/server-notes.ts";
import { execAnswer } from "./exec-answer.ts";
import { answerWithArtifacts, type AgentAnswer } from "./artifact-content.ts";
import type { RuntimeSource } from "../runtime/ready-runtime.ts";
import type { Engine } from "../session/engine.ts";
import type { Session } from "../session/session.ts";
import type { AgentSession } from "./agent-session.ts";
import { readFileSync } from "node:fs";

/** what a run takes of a served tools/call (tools.ts ToolCall, which has more) */
interface AgentCall {
  deps: { engine: Engine; session: Session; runtimes?: RuntimeSource; agent?: AgentSession };
  gate: Gate;
  signal: AbortSignal;
  hookFrame(f: HookFrameBody): void;
  progress(message: string): void;
  traceParent?: TraceCarrier;
}

/** runs `opts` at the serve door and answers as mcpx_exec does; `gate` replaces the call's (a resume's call log) */
export async function runForAgent(
  opts: ExecOptions,
  call: AgentCall,
  how: { output: OutputMode; gate?: Gate; phaseOrigins?: ExecContext["phaseOrigins"] },
): Promise<{ envelope: Envelope; answer: AgentAnswer }> {
  const { session, agent } = call.deps;
  // where each artifact's bytes are, to put them in the answer; its uri is its link to the session
  const paths = new Map<string, string>();
  const artifactUri: ExecContext["artifactUri"] = (a, path) => {
    paths.set(a.id, path);
    return agent ? agent.keepArtifact({ id: a.id, name: a.name, mime: a.mime, size: a.size, path }) : `file://${path}`;
  };
  const frames = execute(opts, {
    engine: call.deps.engine,
    gate: how.gate ?? call.gate,
    env: session.env,
    cacheDir: session.cacheDir,
    sockDir: session.sockDir,
    // stdin is the MCP channel (stdio) or nothing (HTTP): a script only gets ExecOptions.stdin
    inheritStdin: false,
    cwd: session.cwd,
    sandbox: sandboxContext(session, "mcp"),
    limits: runLimits(session, "mcp"),
    signal: call.signal,
    runtimes: call.deps.runtimes,
    artifactUri,
    ...(agent ? { workspace: agent.workspace } : {}),
    ...(how.phaseOrigins ? { phaseOrigins: how.phaseOrigins } : {}),
    ...(call.traceParent ? { traceParent: call.traceParent } : {}),
  });
  const seen: Frame[] = [];
  const envelope = await collectEnvelope(tap(frames, call, seen));
  const max = session.get("mcp.maxAnswer");
  const answer = answerWithArtifacts(
    envelope.artifacts,
    max,
    (a) => readBytes(paths.get(a.id)),
    (reserve) => execAnswer(how.output, envelope, seen, max, reserve),
  );
  return { envelope, answer };
}

/** an artifact's content-addressed file, or undefined when it is gone (the cache was cleared meanwhile) */
function readBytes(path: string | undefined): Uint8Array | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** the run's frames on their way into the envelope: hook notes to the log, a progress note per step */
async function* tap(frames: AsyncIterable<Frame>, call: AgentCall, seen: Frame[]): AsyncIterable<Frame> {
  for await (const f of frames) {
    seen.push(f);
    if (f.type === "hook") {
      const { type: _t, ...body } = f;
      call.hookFrame(body);
    }
    const note = progressNote(f);
    if (note !== undefined) call.progress(note);
    yield f;
  }
}

function progressNote(f: Frame): string | undefined {
  switch (f.type) {
    case "start":
      return "started";
    case "call":
      return `called ${f.server}.${f.tool}${f.ok ? "" : " (failed)"}`;
    case "hook":
      return `hook ${f.name ?? f.on} (${f.on}.${f.phase})`;
    case "log":
      return "server" in f ? `${f.server}: ${serverLogText(f)}` : f.message;
    case "progress":
      return progressText(f.server, f.tool, f);
    default:
      // stdout and stderr arrive in the result, not piecemeal; so does the end (a note sent just
      // before the result is lost by the SDK's client, which dispatches notifications a tick late)
      return undefined;
  }
}
