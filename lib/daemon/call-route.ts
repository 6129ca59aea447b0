// POST /v1/call: one `mcpx call` on the daemon's engine, through the same oneCall a local call uses
// (its gate, its pool, its hooks), plus the caller's own call guards, which only restrict. The
// caller has parsed what it typed (SERVER.TOOL, the JSON object or stdin); key=value items travel
// as typed, since only the daemon knows the tool's input schema.
// The answer is one JSON object: the call's answer, the hook notes in order, or the error that
// refused the arguments (its code, so the caller exits as a local call would).

import * as v from "valibot";
import { oneCall, type CallInput, type CallNote } from "../exec/one-call.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import type { Handler } from "./context.ts";
import { callerGate, RequestSettingsSchema } from "./caller-gate.ts";
import { errorResponse, json, readJson, refusedRun } from "./http.ts";
import { catchThrown, type Thrown } from "./thrown.ts";
import { describeIssues, issuesSummary } from "./validate.ts";

const CallBodySchema = v.strictObject({
  server: v.pipe(v.string(), v.minLength(1)),
  tool: v.pipe(v.string(), v.minLength(1)),
  /** the arguments object; or */
  args: v.optional(v.record(v.string(), v.unknown())),
  /** key=value / key:=JSON items, coerced by the tool's input schema here */
  items: v.optional(v.array(v.string())),
  /** call hooks for this call only (the caller's guards, carried by `call --remote`): they may only restrict */
  hooks: v.optional(v.array(v.record(v.string(), v.unknown()))),
  /** the caller's mcp.callTimeout and hooks.retryBudget: the stricter of each and the daemon's applies */
  settings: RequestSettingsSchema,
});

/** what POST /v1/call answers (200): the call's answer, or `thrown` when the arguments were refused before the gate */
export interface CallReply {
  notes: CallNote[];
  answer?: CallAnswer;
  thrown?: Thrown;
}

export const callRoute: Handler = async (req, { deps }) => {
  const body = await readJson(req, deps.maxBody);
  if (!body.ok) return body.response;
  const parsed = v.safeParse(CallBodySchema, body.value);
  if (!parsed.success) {
    const issues = describeIssues(CallBodySchema, parsed.issues);
    return errorResponse(400, "BAD_REQUEST", `the body is not a valid call ({server, tool, args} or {server, tool, items}): ${issuesSummary(issues)}`, {
      issues,
    });
  }
  const { server, tool, args, items, hooks, settings } = parsed.output;
  // the caller's call guards gate this call only, after the daemon's own (those already in force are not run twice)
  const gated = callerGate(deps, ["call"], hooks, settings);
  if ("response" in gated) return gated.response;
  const { gate } = gated;
  if (args !== undefined && items !== undefined)
    return errorResponse(400, "BAD_REQUEST", "the body gives both args and items: send the arguments object, or the key=value items, not both");
  const input: CallInput = items !== undefined ? { kind: "items", items } : { kind: "json", args: args ?? {} };
  const notes: CallNote[] = [];
  const run = deps.runs.track(req.signal);
  if ("busy" in run) return refusedRun("POST /v1/call", run);
  try {
    return json({
      notes,
      ...(await catchThrown(async () => ({ answer: await oneCall({ ...deps.engine, gate }, server, tool, input, (n) => notes.push(n), "http") }))),
    } satisfies CallReply);
  } finally {
    run.done();
  }
};
