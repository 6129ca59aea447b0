// POST /v1/resource and POST /v1/prompt: one `mcpx resource` or `mcpx prompt` on the daemon's
// engine, through the same code a local one runs (lib/exec/one-feature.ts: its gate's resource.read
// and prompt.get points, its pool), plus the caller's own guards for that point, which only restrict.
// The caller has parsed what it typed (a prompt's key=value items are strings either way); it
// renders the answer and writes blobs itself, so they travel as the base64 the server sent.
// The answer is one JSON object: the list, the read or get, and the hook notes in order; or the
// error the local command would have thrown (an unknown server, a prompt's wrong arguments) with its code.

import * as v from "valibot";
import { knownServer, onePrompt, oneResource, type PromptAnswer, type ResourceAnswer } from "../exec/one-feature.ts";
import type { Frame } from "../exec/frames.ts";
import { runContext } from "../hooks/run-context.ts";
import { callerGate, RequestSettingsSchema } from "./caller-gate.ts";
import type { DaemonDeps, Handler } from "./context.ts";
import { errorResponse, json, readJson, refusedRun } from "./http.ts";
import { catchThrown, type Thrown } from "./thrown.ts";
import { describeIssues, issuesSummary } from "./validate.ts";

const Name = v.pipe(v.string(), v.minLength(1));
/** the caller's guards for this request only (carried by --remote): they may only restrict */
const Hooks = v.optional(v.array(v.record(v.string(), v.unknown())));

const ResourceBodySchema = v.strictObject({ server: Name, uri: v.optional(Name), hooks: Hooks, settings: RequestSettingsSchema });
const PromptBodySchema = v.strictObject({
  server: Name,
  name: v.optional(Name),
  args: v.optional(v.record(v.string(), v.string())),
  hooks: Hooks,
  settings: RequestSettingsSchema,
});

type HookFrame = Extract<Frame, { type: "hook" }>;
// `thrown?` on every member, so the client's askDaemon (which throws a reply's `thrown`) takes these types
/** what POST /v1/resource answers (200): every hook frame on the way, in order, then the answer or what the command threw */
export type ResourceReply = { notes: HookFrame[]; thrown?: Thrown } & (ResourceAnswer | { thrown: Thrown });
/** what POST /v1/prompt answers (200) */
export type PromptReply = { notes: HookFrame[]; thrown?: Thrown } & (PromptAnswer | { thrown: Thrown });

export const resourceRoute: Handler = async (req, { deps }) => {
  const body = await parseBody(req, deps, ResourceBodySchema, "a resource request ({server}, or {server, uri})");
  if ("response" in body) return body.response;
  const { server, uri, hooks, settings } = body.value;
  return answer(req, deps, ["resource.read"], hooks, settings, (gate, push) => oneResource(gate, knownServer(deps.session.config, server), uri, push));
};

export const promptRoute: Handler = async (req, { deps }) => {
  const body = await parseBody(req, deps, PromptBodySchema, "a prompt request ({server}, or {server, name, args})");
  if ("response" in body) return body.response;
  const { server, name, args, hooks, settings } = body.value;
  if (args !== undefined && name === undefined)
    return errorResponse(400, "BAD_REQUEST", "the body gives args but no name: arguments belong to one prompt's get", {
      issues: [{ path: "args", message: "given without name" }],
    });
  return answer(req, deps, ["prompt.get"], hooks, settings, (gate, push) => onePrompt(gate, knownServer(deps.session.config, server), name, args ?? {}, push));
};

async function parseBody<S extends v.GenericSchema>(
  req: Request,
  deps: DaemonDeps,
  schema: S,
  what: string,
): Promise<{ value: v.InferOutput<S> } | { response: Response }> {
  const body = await readJson(req, deps.maxBody);
  if (!body.ok) return { response: body.response };
  const parsed = v.safeParse(schema, body.value);
  if (parsed.success) return { value: parsed.output };
  const issues = describeIssues(schema, parsed.issues);
  return { response: errorResponse(400, "BAD_REQUEST", `the body is not ${what}: ${issuesSummary(issues)}`, { issues }) };
}

/** runs the request on the daemon's engine through the caller's gate; every hook frame on the way (server.start too) is a note */
async function answer<T extends object>(
  req: Request,
  deps: DaemonDeps,
  points: readonly string[],
  hooks: Array<Record<string, unknown>> | undefined,
  settings: Record<string, unknown> | undefined,
  work: (engine: Parameters<typeof oneResource>[0], push: (f: Frame) => void) => Promise<T>,
): Promise<Response> {
  const gated = callerGate(deps, points, hooks, settings);
  if ("response" in gated) return gated.response;
  const engine = { ...deps.engine, gate: gated.gate };
  const notes: HookFrame[] = [];
  const push = (f: Frame) => {
    if (f.type === "hook") notes.push(f);
  };
  const run = deps.runs.track(req.signal);
  if ("busy" in run) return refusedRun(`POST ${new URL(req.url).pathname}`, run);
  try {
    const value = await runContext.run({ door: "http", hookFrame: (f) => push({ type: "hook", ...f }) }, () => catchThrown(() => work(engine, push)));
    return json({ notes, ...value });
  } finally {
    run.done();
  }
}
