// One tools/call from a script through the hook gate: call.before may refuse (the server never sees
// the call) or rewrite the arguments; onSuccess may refuse or replace the result; onError may recover
// with a value or retry within hooks.retryBudget; suffix advises. Every call yields one call frame
// and one call.finished event.

import { frameCodeOf, isErrorCode } from "../errors/codes.ts";
import { runGate, gateIsEmpty } from "../hooks/gate.ts";
import type { Gate, Payload } from "../hooks/types.ts";
import { asCallResult, type Tool } from "../mcp/tool.ts";
import { errorText, findTool, knownTool } from "../mcp/tool-call.ts";
import { sha256 } from "../paths/content-file.ts";
import type { PushQueue } from "../util/frame-queue.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { Frame, HookFrameBody, SerializedError } from "./frames.ts";
import type { CallAnswer } from "./runner.ts";

export interface CallRequest {
  runId?: string;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** the tool `tool` names, when the caller has it already (mcpx call, from the catalogue cache): not looked up again */
  known?: Tool;
}

/**
 * @param answered told the answer before its call frame and call.finished event are made: a script's
 * call is answered first, and the bookkeeping runs while the script carries on (frames still keep their
 * order: the script's next output can only be read after this synchronous step)
 */
export async function gatedCall(gate: Gate, req: CallRequest, q: Pick<PushQueue<Frame>, "push">, answered?: (answer: CallAnswer) => void): Promise<CallAnswer> {
  await gate.ready;
  const t0 = performance.now();
  const hookFrame = (f: HookFrameBody) => q.push({ type: "hook", ...f });
  const report = (answer: CallAnswer, tool: string, args: Record<string, unknown>, destructiveHint?: boolean): CallAnswer => {
    const durationMs = Math.round((performance.now() - t0) * 100) / 100;
    answered?.(answer);
    // hashed when first read (a frame written out, an event delivered), once for both: a run nobody
    // streams frames or events from never pays for it (~15 µs a call, 7 ms per MB of arguments)
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
    });
    gate.bus.publish("call.finished", data, { server: req.server, tool });
    return answer;
  };

  let toolName = req.tool;
  let annotations: Record<string, unknown> | undefined;
  try {
    const t = req.known ?? knownTool(gate.pool, req.server, req.tool) ?? (await findTool(gate.pool, req.server, req.tool));
    toolName = t.name;
    annotations = t.annotations;
  } catch (err) {
    // an unknown (or `_` hook) tool never goes upstream, so no call hook fires for it
    return report({ ok: false, error: asError(err, req) }, req.tool, req.args);
  }
  const destructiveHint = typeof annotations?.destructiveHint === "boolean" ? annotations.destructiveHint : undefined;
  const payload: Payload = { runId: req.runId, call: { server: req.server, tool: toolName, arguments: req.args, annotations } };
  if (gateIsEmpty(gate, "call", { server: req.server, tool: toolName }))
    return report(await upstream(gate, req.server, toolName, req.args), toolName, req.args, destructiveHint);

  const before = await runGate(gate, "call", "before", payload, hookFrame);
  if (before.refused) {
    const answer: CallAnswer = { ok: false, error: refusedError(req.server, toolName, before.refused) };
    await runGate(gate, "call", "suffix", { ...payload, error: plain(answer.error) }, hookFrame);
    return report(answer, toolName, payload.call!.arguments, destructiveHint);
  }
  const args = payload.call!.arguments;
  let answer: CallAnswer;
  for (let retries = 0; ; retries++) {
    answer = await upstream(gate, req.server, toolName, args);
    if (answer.ok) {
      payload.result = answer.value;
      const d = await runGate(gate, "call", "onSuccess", payload, hookFrame);
      answer = d.refused ? { ok: false, error: refusedError(req.server, toolName, d.refused) } : { ok: true, value: payload.result };
      break;
    }
    payload.error = plain(answer.error);
    const d = await runGate(gate, "call", "onError", payload, hookFrame, gate.policy.retryBudget - retries);
    delete payload.error;
    if (d.replaced) {
      answer = { ok: true, value: asCallResult(d.value) };
      break;
    }
    if (!d.retry || retries >= gate.policy.retryBudget) break;
  }
  await runGate(gate, "call", "suffix", answer.ok ? { ...payload, result: answer.value } : { ...payload, error: plain(answer.error) }, hookFrame);
  return report(answer, toolName, args, destructiveHint);
}

async function upstream(gate: Gate, server: string, tool: string, args: Record<string, unknown>): Promise<CallAnswer> {
  try {
    const result = await gate.pool.call(server, tool, args, gate.policy.callTimeoutMs);
    if (result.isError) {
      const message = `${server}.${tool} failed: ${errorText(result)}`;
      return { ok: false, error: { name: "ToolError", code: frameCodeOf("TOOL_ERROR"), message, data: { server, tool, raw: result } } };
    }
    return { ok: true, value: result };
  } catch (err) {
    return { ok: false, error: asError(err, { server, tool }) };
  }
}

function asError(err: unknown, req: { server: string; tool: string }): SerializedError {
  const e = err as Error & { code?: unknown };
  const code = isErrorCode(e.code) ? frameCodeOf(e.code) : frameCodeOf("UPSTREAM_ERROR");
  return { name: "ToolError", code, message: e.message, data: { server: req.server, tool: req.tool, raw: null } };
}

function refusedError(server: string, tool: string, r: { hook: string; reason: string }): SerializedError {
  return {
    name: "ToolError",
    code: frameCodeOf("CALL_REFUSED"),
    message: `call to ${server}.${tool} refused by hook ${r.hook}: ${r.reason}`,
    data: { server, tool, raw: null, hook: r.hook, reason: r.reason },
  };
}

function plain(e: SerializedError) {
  return { name: e.name, message: e.message, code: e.code };
}
