// One resources/read or prompts/get through the hook gate, as a tool call passes the call point
// (gated-call.ts): the resource.read and prompt.get points' before hooks may refuse (the server never
// sees the request; prompt.get.before may rewrite the arguments), onSuccess may refuse or replace the
// result, onError may recover or retry within hooks.retryBudget, suffix advises. This is the only
// file that holds the pool's SEND_FEATURE_REQUEST capability (lib/mcp/upstream-call.ts): a script's
// resources.read/prompts.get, mcpx resource and mcpx prompt all come through here (decision 0016).

import { isErrorCode } from "../errors/codes.ts";
import { frameError } from "../errors/frame-error.ts";
import { gateIsEmpty, runGate } from "../hooks/gate.ts";
import { settleOutcome } from "../hooks/recovery.ts";
import type { Gate, Payload } from "../hooks/types.ts";
import type { FeatureOp } from "../mcp/server-features.ts";
import { SEND_FEATURE_REQUEST } from "../mcp/upstream-call.ts";
import type { EngineParts } from "../session/engine.ts";
import type { PushQueue } from "../util/frame-queue.ts";
import type { Frame, SerializedError } from "./frames.ts";
import type { CallAnswer } from "../runtime/runner.ts";

export interface FeatureRequest {
  runId?: string;
  op: FeatureOp;
  server: string;
  /** the resource's URI, or the prompt's name */
  target: string;
  /** the prompt's arguments (MCP prompt arguments are strings); {} for a resource */
  args: Record<string, string>;
}

/** what each op is called in messages, and the payload key its hooks get */
const SAID = { "resource.read": { what: "read of", key: "resource" }, "prompt.get": { what: "get of prompt", key: "prompt" } } as const;

export async function featureThroughGate(engine: EngineParts, gate: Gate, req: FeatureRequest, q: Pick<PushQueue<Frame>, "push">): Promise<CallAnswer> {
  if (gate.ready) await gate.ready;
  const { op, server, target } = req;
  const send = (args: Record<string, string>) => upstream(engine, gate, req, args);
  if (gateIsEmpty(gate, op, { server, ...(op === "resource.read" ? { uri: target } : {}) })) return send(req.args);
  const hookFrame = (f: Parameters<Parameters<typeof runGate>[4]>[0]) => q.push({ type: "hook", ...f });
  const payload: Payload =
    op === "resource.read"
      ? { runId: req.runId, resource: { server, uri: target } }
      : { runId: req.runId, prompt: { server, name: target, arguments: req.args } };
  const refused = (r: { hook: string; reason: string }) =>
    frameError("CALL_REFUSED", `${SAID[op].what} ${server} ${JSON.stringify(target)} refused by hook ${r.hook}: ${r.reason}`, {
      server,
      [SAID[op].key]: target,
      hook: r.hook,
      reason: r.reason,
    });
  const before = await runGate(gate, op, "before", payload, hookFrame);
  let answer: CallAnswer;
  if (before.refused) answer = { ok: false, error: refused(before.refused) };
  else {
    const args = payload.prompt?.arguments ?? req.args;
    const settled = await settleOutcome(gate, op, payload, hookFrame, () => send(args), { refused, recovered: (v) => v });
    answer = settled!.ok ? { ok: true, value: settled!.value } : { ok: false, error: settled!.error };
  }
  // the suffix is told the outcome, never the error a recovery replaced
  delete payload.error;
  delete payload.result;
  await runGate(gate, op, "suffix", answer.ok ? { ...payload, result: answer.value } : { ...payload, error: plain(answer.error) }, hookFrame);
  return answer;
}

function upstream(engine: EngineParts, gate: Gate, req: FeatureRequest, args: Record<string, string>): Promise<CallAnswer> {
  return engine.pool[SEND_FEATURE_REQUEST](req.server, req.op, req.target, args, gate.policy.callTimeoutMs).then(
    (value): CallAnswer => ({ ok: true, value }),
    (err): CallAnswer => {
      const e = err as Error & { code?: unknown };
      // a failure mcpx named keeps its code; anything else the server said is an UPSTREAM_ERROR
      const known = isErrorCode(e.code) ? e.code : undefined;
      return { ok: false, error: frameError(known ?? "UPSTREAM_ERROR", e.message, { server: req.server, raw: null }) };
    },
  );
}

function plain(e: SerializedError) {
  return { name: e.name, message: e.message, code: e.code };
}
