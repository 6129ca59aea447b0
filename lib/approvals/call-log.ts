// A run's call log, for runs that may pause for a person's yes (mcpx_exec over MCP): every call the
// script makes is checked against the log of the paused run it resumes (answered from there, never
// sent again; a call that differs from the log is an error), the call the user decided is sent once
// or refused, and later calls go live. A live `ask` that nobody can answer pauses the run: the call
// is not sent, and every call after it is answered "paused" without being sent either.

import { callError } from "../errors/frame-error.ts";
import { gateWithAsk } from "../hooks/build-gate.ts";
import type { Gate } from "../hooks/types.ts";
import { sha256 } from "../paths/content-file.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { LoggedCall, PendingApproval } from "./store.ts";

export interface CallLog {
  /** the paused run's calls, answered in order */
  readonly recorded: readonly LoggedCall[];
  /** the call the user decided: the one after the recorded ones */
  readonly decided?: { server: string; tool: string; argsHash: string; approved: boolean; reason?: string };
  /** this run's calls so far, by the order they were made (not answered): what a new pause records */
  readonly made: LoggedCall[];
  /** how many calls the run has made */
  n: number;
  /** set when an unanswerable `ask` paused the run */
  paused?: { server: string; tool: string; arguments: Record<string, unknown>; question: string; index: number };
}

export function newCallLog(resumed?: PendingApproval): CallLog {
  if (!resumed?.decision) return { recorded: [], made: [], n: 0 };
  const { server, tool, arguments: args, decision } = resumed;
  return {
    recorded: resumed.log,
    decided: { server, tool, argsHash: argsHashOf(args), approved: decision.approved, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) },
    made: [],
    n: 0,
  };
}

/** the call log of the run this gate view serves, if its calls are logged */
export function callLogOf(gate: Gate): CallLog | undefined {
  return gate.callLog as CallLog | undefined;
}

/** the gate view whose calls go through `log` (gated-call.ts reads it) */
export function gateWithCallLog(base: Gate, log: CallLog): Gate {
  return Object.create(base, { callLog: { value: log } }) as Gate;
}

function argsHashOf(args: Record<string, unknown>): string {
  return sha256(stableStringify(args)).slice(0, 16);
}

interface Req {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * One call of a logged run; `send` takes it through the gate view it is given (the log left out of
 * it, so a hook's own calls are not logged) and upstream; `answered` is told the answer first.
 */
export async function loggedCall(
  log: CallLog,
  gate: Gate,
  req: Req,
  send: (gate: Gate) => Promise<CallAnswer>,
  answered?: (answer: CallAnswer) => void,
): Promise<CallAnswer> {
  const answer = await logged(log, gate, req, (g) => send(Object.create(g, { callLog: { value: undefined } }) as Gate));
  answered?.(answer);
  return answer;
}

async function logged(log: CallLog, gate: Gate, req: Req, send: (gate: Gate) => Promise<CallAnswer>): Promise<CallAnswer> {
  const i = log.n++;
  const argsHash = argsHashOf(req.args);
  const here = { server: req.server, tool: req.tool, argsHash };
  if (log.paused) return pendingAnswer(req, "the run is paused for an approval before it");
  const expected = i < log.recorded.length ? (log.recorded[i] ?? undefined) : i === log.recorded.length ? log.decided : undefined;
  if (expected && (expected.server !== here.server || expected.tool !== here.tool || expected.argsHash !== here.argsHash)) {
    return {
      ok: false,
      error: callError(
        "REPLAY_DIVERGED",
        `the replay diverged at call ${i + 1}: the paused run called ${expected.server}.${expected.tool} (args ${expected.argsHash}) there, ` +
          `this one ${req.server}.${req.tool} (args ${argsHash}); nothing was sent. Resume with the same source and inputs, or run it anew`,
        { server: req.server, tool: req.tool, raw: null },
      ),
    };
  }
  // a call the paused run had not had answered when it ended left no entry (null in the file): it goes live
  const r = i < log.recorded.length ? log.recorded[i] : undefined;
  if (r) {
    log.made[i] = r;
    return r.answer;
  }
  let answer: CallAnswer;
  if (i === log.recorded.length && log.decided) {
    const d = log.decided;
    answer = d.approved
      ? await send(gateWithAsk(gate, async () => true))
      : {
          ok: false,
          error: callError("CALL_REFUSED", `call to ${req.server}.${req.tool} refused by the user${d.reason ? `: ${d.reason}` : ""}`, {
            server: req.server,
            tool: req.tool,
            raw: null,
            reason: d.reason ?? "rejected",
          }),
        };
  } else if (gate.ask) {
    answer = await send(gate);
  } else {
    // nobody can answer here: an `ask` before the call pauses the run instead of refusing the call;
    // one after it (onSuccess) refuses as before, since pausing there would send the call twice
    let question: string | undefined;
    answer = await send(
      gateWithAsk(gate, async (q, where) => {
        if (where?.point !== "call" || where.phase !== "before") return undefined;
        question ??= q;
        return false;
      }),
    );
    if (question !== undefined) {
      log.paused = { server: req.server, tool: req.tool, arguments: req.args, question, index: i };
      return pendingAnswer(req, question);
    }
  }
  log.made[i] = { ...here, answer };
  return answer;
}

function pendingAnswer(req: Req, why: string): CallAnswer {
  return {
    ok: false,
    error: callError("PENDING_APPROVAL", `call to ${req.server}.${req.tool} not sent: it waits for a person's yes (${why})`, {
      server: req.server,
      tool: req.tool,
      raw: null,
    }),
  };
}
