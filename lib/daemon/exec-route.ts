// POST /v1/exec: an ExecOptions body, validated with the same schema every door uses, run through
// the one exec path on the daemon's shared engine. The answer is ExecOptions.output: stream (NDJSON
// frames as they happen), json (one envelope after the run) or text (what `mcpx exec` prints on
// stdout, its exit code in a header); without it, stream when the client accepts
// application/x-ndjson, else json. The client going away cancels the run, which ends its process
// group. Each artifact the run makes is kept by the daemon and its frame's uri is the route that
// serves it (artifacts-route.ts), from the moment it is made until daemon.artifactTtl after the run.

import { carrierFromHeaders, withTraceParent } from "../telemetry/trace-carrier.ts";
import { resolve } from "node:path";
import * as v from "valibot";
import { collectEnvelope, emptyEnvelope, foldFrame } from "../exec/envelope.ts";
import { execute } from "../exec/execute.ts";
import { runLimits, sandboxContext } from "../exec/door-policy.ts";
import { ExecOptionsSchema, type ExecOptions } from "../exec/options-schema.ts";
import { serverDefaultOrigins, spliceRequestPhases, withServerDefaults } from "../exec/server-defaults.ts";
import { perRunHooks } from "../hooks/declared-hooks.ts";
import type { Hook } from "../hooks/hook.ts";
import { textModeStdout } from "../render/frames-to-cli.ts";
import { stableStringify } from "../util/stable-json.ts";
import { trace } from "../util/trace.ts";
import { refusedField } from "../trust/door-authority.ts";
import { artifactPath } from "./artifacts-route.ts";
import type { Handler } from "./context.ts";
import { errorResponse, readJson, refusedRun, wantsNdjson } from "./http.ts";
import { ndjsonFrames } from "./ndjson-frames.ts";
import { describeIssues, issuesSummary } from "./validate.ts";

/** with output "text", the body is only stdout: how the run ended travels in these */
const EXIT_CODE_HEADER = "x-mcpx-exit-code";
const RUN_ID_HEADER = "x-mcpx-run-id";

export const execRoute: Handler = async (req, { deps }) => {
  const body = await readJson(req, deps.maxBody);
  trace("exec request read");
  if (!body.ok) return body.response;
  if (body.value === null || typeof body.value !== "object" || Array.isArray(body.value)) {
    return errorResponse(
      400,
      "BAD_REQUEST",
      `the body must be one JSON object of ExecOptions (source or file, args, script, hooks, ` +
        `…), not ${Array.isArray(body.value) ? "an array" : JSON.stringify(body.value)}`,
    );
  }
  const door = "the POST /v1/exec body";
  // a null or "-" phase line splices the daemon's own lines in there, before anything is validated
  const spliced = spliceRequestPhases(body.value as Record<string, unknown>, deps.session, door);
  const sent = spliced.raw;
  const parsed = v.safeParse(ExecOptionsSchema, sent);
  if (!parsed.success) {
    const issues = describeIssues(ExecOptionsSchema, parsed.issues);
    return errorResponse(400, "BAD_REQUEST", `the body is not valid ExecOptions: ${issuesSummary(issues)}`, { issues });
  }
  // the same table every door reads; the user's own doors may set every field today
  const refused = refusedField("user", sent);
  if (refused) return errorResponse(403, "FORBIDDEN", `POST /v1/exec refused ${refused}`);
  const { session, engine } = deps;
  // a knob the request leaves out is the daemon's own setting, exactly as mcpx_exec does it
  const opts: ExecOptions = withServerDefaults(sent, parsed.output, deps.session);
  // per-run hooks are checked here so a bad one is a 400, as a bad hook is a usage error on the CLI
  try {
    opts.hooks = withoutHooksInForce(opts.hooks, perRunHooks(opts.hooks, resolve(session.cwd, opts.cwd ?? "."), session.env), engine.gate.hooks);
  } catch (err) {
    return errorResponse(400, "BAD_REQUEST", `hooks: ${(err as Error).message}`, { issues: [{ path: "hooks", message: (err as Error).message }] });
  }

  const started = deps.runs.start(req.signal);
  // answered now rather than queued: the client knows at once and may retry (daemon.maxRuns), elsewhere when draining
  if ("busy" in started) return refusedRun("POST /v1/exec", started);
  // each artifact is served from the moment it is made; daemon.artifactTtl counts from the run's end
  const keeper = deps.artifacts.kept.run();
  const run = {
    ...started,
    done: () => {
      started.done();
      keeper.ended();
    },
  };
  const frames = execute(opts, {
    engine,
    gate: engine.gate,
    env: session.env,
    cacheDir: session.cacheDir,
    sockDir: session.sockDir,
    // stdin is ExecOptions.stdin or empty: never the daemon's own
    inheritStdin: false,
    cwd: session.cwd,
    sandbox: sandboxContext(session, "http"),
    limits: runLimits(session, "http"),
    signal: run.signal,
    runtimes: deps.runtimes,
    // the caller's trace continues into the run (W3C trace context headers)
    ...withTraceParent(carrierFromHeaders(req.headers)),
    phaseOrigins: serverDefaultOrigins(sent, parsed.output, session, door, spliced.origins),
    artifactUri: (a, path, made) => {
      if (made) deps.artifacts.written(path);
      keeper.keep({ ...a, path });
      return artifactPath(a.id);
    },
  });

  const output = opts.output ?? (wantsNdjson(req) ? "stream" : "json");
  if (output === "json") {
    try {
      return Response.json(await collectEnvelope(frames));
    } finally {
      run.done();
    }
  }
  if (output === "text") {
    try {
      // what `mcpx exec` prints on stdout: the script's stdout and its returned value
      const envelope = emptyEnvelope();
      // pieces, not one string: stdout that is not UTF-8 stays the script's bytes
      const pieces: Array<string | Uint8Array> = [];
      for await (const f of frames) {
        foldFrame(envelope, f);
        const printed = textModeStdout(f);
        if (printed !== undefined) pieces.push(printed);
      }
      return new Response(new Blob(pieces), {
        headers: { "content-type": "text/plain; charset=utf-8", [EXIT_CODE_HEADER]: String(envelope.exitCode), [RUN_ID_HEADER]: envelope.runId },
      });
    } finally {
      run.done();
    }
  }
  const stream = ndjsonFrames(frames, run, opts.delivery === "stream");
  return new Response(stream, { headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" } });
};

/**
 * Drops the per-run hooks that are already in force with the same name, point, phase, action and
 * filter: a client whose config is also the daemon's (same project, same user file) sends its
 * script hooks along, and without this they would run twice.
 */
export function withoutHooksInForce(raw: ExecOptions["hooks"], parsed: readonly Hook[], inForce: readonly Hook[]): ExecOptions["hooks"] {
  const key = (h: Hook) => stableStringify({ name: h.name, on: h.on, phase: h.phase, action: h.action, when: h.when, compat: h.compat ?? null });
  const have = new Set(inForce.map(key));
  return raw.filter((_, i) => !have.has(key(parsed[i]!)));
}
