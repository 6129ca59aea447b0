// One tools/call from a script through the hook gate: call.before may refuse (the server never sees
// the call) or rewrite the arguments; onSuccess may refuse or replace the result; onError may recover
// with a value or retry within hooks.retryBudget; suffix advises. Every call yields one call frame
// and one call.finished event. This is the only file that may send a tools/call upstream: it alone
// holds the pool's SEND_TOOLS_CALL capability (lib/mcp/upstream-call.ts), and every caller (a
// script, a door, a hook's action: lib/hooks/call-chain.ts) comes through here.

import { callLogOf, loggedCall } from "../approvals/call-log.ts";
import { frameCodeOf, isErrorCode } from "../errors/codes.ts";
import { callError } from "../errors/frame-error.ts";
import { noteEventChain } from "../hooks/call-chain.ts";
import { runContext } from "../hooks/run-context.ts";
import { runGate, gateIsEmpty } from "../hooks/gate.ts";
import { settleOutcome } from "../hooks/recovery.ts";
import type { Gate, Payload } from "../hooks/types.ts";
import { asCallResult, type Tool } from "../mcp/tool.ts";
import { errorText, findTool, knownTool } from "../mcp/tool-call.ts";
import { SEND_TOOLS_CALL } from "../mcp/upstream-call.ts";
import type { CallNotes } from "../mcp/server-notes.ts";
import { sha256 } from "../paths/content-file.ts";
import type { EngineParts } from "../session/engine.ts";
import type { PushQueue } from "../util/frame-queue.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { Frame, HookFrameBody, SerializedError } from "./frames.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import type { CallSpan } from "../telemetry/tap.ts";

export interface CallRequest {
  runId?: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** the tool `tool` names, when the caller has it already (mcpx call, from the catalogue cache): not looked up again */
  known?: Tool;
  /** the run's: where the server's logs and the call's progress go, and its end, which cancels the call */
  notes?: CallNotes;
}

/** where a call's frames go (the run's queue, a door's collector) */
type FrameSink = Pick<PushQueue<Frame>, "push">;
/** told a call's answer before its frame and event are made */
type Answered = (answer: CallAnswer) => void;

/** the gates whose `ready` has settled: a call through one of them need not wait a promise turn for it */
const settledReady = new WeakSet<Promise<void>>();

/**
 * @param answered told the answer before its call frame and call.finished event are made: a script's
 * call is answered first, and the bookkeeping runs while the script carries on (frames still keep their
 * order: the script's next output can only be read after this synchronous step)
 */
export function callThroughGate(engine: EngineParts, gate: Gate, req: CallRequest, q: FrameSink, answered?: Answered): Promise<CallAnswer> {
  // a run that may pause for a person's yes: its calls are logged and replayed (lib/approvals/call-log.ts)
  const log = callLogOf(gate);
  if (log) return loggedCall(log, gate, req, (g) => gateAndSend(engine, g, req, q), answered);
  return gateAndSend(engine, gate, req, q, answered);
}

function gateAndSend(engine: EngineParts, gate: Gate, req: CallRequest, q: FrameSink, answered?: Answered): Promise<CallAnswer> {
  // The common case, a tool resolved before with no hook in force for it, goes upstream in the turn it
  // arrived in, with one promise reaction on the way back: what gatedCalls does, minus the promise
  // turns of its awaits (the gate's readiness, the tool, the async layers around the request).
  const tool = gate.ready === undefined || settledReady.has(gate.ready) ? (req.known ?? knownTool(engine.pool, req.server, req.tool)) : undefined;
  if (!tool || !gateIsEmpty(gate, "call", { server: req.server, tool: tool.name })) return gatedCalls(engine, gate, req, q, answered);
  const t0 = performance.now();
  // one property read when nobody listens: the fast path stays as fast as it was
  const span = gate.tap ? callSpan(gate, req, tool.name) : undefined;
  return upstream(engine, gate, req.server, tool.name, req.args, req.notes, span).then((answer) =>
    report(engine, gate, req, q, answered, t0, answer, tool.name, req.args, destructiveHintOf(tool.annotations), span),
  );
}

/** the call's span at the gate's telemetry tap: the arguments as the caller sent them, the door where the operation says it */
function callSpan(gate: Gate, req: CallRequest, tool: string): CallSpan {
  const door = runContext.getStore()?.door;
  return gate.tap!.call({
    ...(req.runId !== undefined ? { runId: req.runId } : {}),
    ...(door ? { door } : {}),
    server: req.server,
    tool,
    args: req.args,
    ...(gate.chain?.length ? { by: gate.chain.map((h) => h.name) } : {}),
  });
}

/** every call: the tool looked up (waiting for the server and its list when it must), and the gate run */
async function gatedCalls(engine: EngineParts, gate: Gate, req: CallRequest, q: FrameSink, answered?: Answered): Promise<CallAnswer> {
  if (gate.ready) {
    await gate.ready;
    settledReady.add(gate.ready);
  }
  const t0 = performance.now();
  const hookFrame = (f: HookFrameBody) => q.push({ type: "hook", ...f });
  // started once the tool's name is resolved (or known not to resolve), so the span names the tool called
  let span: CallSpan | undefined;
  const done = (answer: CallAnswer, tool: string, args: Record<string, unknown>, destructiveHint?: boolean) =>
    report(engine, gate, req, q, answered, t0, answer, tool, args, destructiveHint, span);

  let toolName = req.tool;
  let annotations: Record<string, unknown> | undefined;
  try {
    const t = req.known ?? knownTool(engine.pool, req.server, req.tool) ?? (await findTool(engine.pool, req.server, req.tool));
    toolName = t.name;
    annotations = t.annotations;
  } catch (err) {
    // an unknown (or `_` hook) tool never goes upstream, so no call hook fires for it
    if (gate.tap) span = callSpan(gate, req, req.tool);
    return done({ ok: false, error: asError(err, req) }, req.tool, req.args);
  }
  if (gate.tap) span = callSpan(gate, req, toolName);
  const destructiveHint = destructiveHintOf(annotations);
  if (gateIsEmpty(gate, "call", { server: req.server, tool: toolName }))
    return done(await upstream(engine, gate, req.server, toolName, req.args, req.notes, span), toolName, req.args, destructiveHint);

  const payload: Payload = { runId: req.runId, call: { server: req.server, tool: toolName, arguments: req.args, annotations } };
  const before = await runGate(gate, "call", "before", payload, hookFrame);
  if (before.refused) {
    const answer: CallAnswer = { ok: false, error: refusedError(req.server, toolName, before.refused) };
    await runGate(gate, "call", "suffix", { ...payload, error: plain(answer.error) }, hookFrame);
    return done(answer, toolName, payload.call!.arguments, destructiveHint);
  }
  const args = payload.call!.arguments;
  const settled = await settleOutcome(gate, "call", payload, hookFrame, () => upstream(engine, gate, req.server, toolName, args, req.notes, span), {
    refused: (r) => refusedError(req.server, toolName, r),
    recovered: asCallResult,
  });
  const answer: CallAnswer = settled!.ok ? { ok: true, value: settled!.value } : { ok: false, error: settled!.error };
  // the suffix is told the outcome below, never the error a recovery replaced
  delete payload.error;
  await runGate(gate, "call", "suffix", answer.ok ? { ...payload, result: answer.value } : { ...payload, error: plain(answer.error) }, hookFrame);
  return done(answer, toolName, args, destructiveHint);
}

function destructiveHintOf(annotations: Record<string, unknown> | undefined): boolean | undefined {
  return typeof annotations?.destructiveHint === "boolean" ? annotations.destructiveHint : undefined;
}

/** the call answered (first), then its call frame and its call.finished event */
function report(
  engine: EngineParts,
  gate: Gate,
  req: CallRequest,
  q: FrameSink,
  answered: Answered | undefined,
  t0: number,
  answer: CallAnswer,
  tool: string,
  args: Record<string, unknown>,
  destructiveHint?: boolean,
  span?: CallSpan,
): CallAnswer {
  const durationMs = Math.round((performance.now() - t0) * 100) / 100;
  answered?.(answer);
  span?.end(
    answer.ok
      ? { ok: true, durationMs, isError: false }
      : { ok: false, durationMs, isError: answer.error.code === frameCodeOf("TOOL_ERROR"), errorCode: answer.error.code },
  );
  // hashed when first read (a frame written out, an event delivered), once for both: a run nobody
  // streams frames or events from never pays for it
  let hash: string | undefined;
  const argsHash = () => (hash ??= sha256(stableStringify(args)).slice(0, 16));
  const error = answer.ok ? undefined : answer.error.message;
  q.push({
    type: "call",
    server: req.server,
    tool,
    get argsHash() {
      return argsHash();
    },
    durationMs,
    ok: answer.ok,
    destructiveHint,
    error,
  });
  const data = Object.freeze({
    server: req.server,
    tool,
    ok: answer.ok,
    durationMs,
    get argsHash() {
      return argsHash();
    },
    runId: req.runId,
    // a call a hook made says which (the chain, outermost first); observers in that chain skip it (call-chain.ts)
    ...(gate.chain?.length ? { by: gate.chain.map((h) => h.name).join(" > ") } : {}),
  });
  noteEventChain(data, gate);
  engine.bus.publish("call.finished", data, { server: req.server, tool });
  return answer;
}

/**
 * the call sent upstream, in the turn it is made, and its outcome as an answer (never a rejection);
 * its span's trace context goes with it in `params._meta`, where a tap traces (the MCP convention)
 */
function upstream(
  engine: EngineParts,
  gate: Gate,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  notes?: CallNotes,
  span?: CallSpan,
): Promise<CallAnswer> {
  const meta = span?.traceMeta?.();
  return engine.pool[SEND_TOOLS_CALL](server, tool, args, gate.policy.callTimeoutMs, false, notes, meta).then(
    (result): CallAnswer => {
      if (result.isError) {
        const message = `${server}.${tool} failed: ${errorText(result)}`;
        return { ok: false, error: callError("TOOL_ERROR", message, { server, tool, raw: result }) };
      }
      return { ok: true, value: result };
    },
    (err): CallAnswer => ({ ok: false, error: asError(err, { server, tool }) }),
  );
}

function asError(err: unknown, req: { server: string; tool: string }): SerializedError {
  const e = err as Error & { code?: unknown };
  // a failure mcpx named keeps its code; anything else the server said is an UPSTREAM_ERROR
  const known = isErrorCode(e.code) ? e.code : undefined;
  return callError(known ?? "UPSTREAM_ERROR", e.message, { server: req.server, tool: req.tool, raw: null });
}

function refusedError(server: string, tool: string, r: { hook: string; reason: string }): SerializedError {
  return callError("CALL_REFUSED", `call to ${server}.${tool} refused by hook ${r.hook}: ${r.reason}`, {
    server,
    tool,
    raw: null,
    hook: r.hook,
    reason: r.reason,
  });
}

function plain(e: SerializedError) {
  return { name: e.name, message: e.message, code: e.code };
}
