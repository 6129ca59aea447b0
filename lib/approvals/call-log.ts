// A run's call log, for runs that may pause for a person's yes (mcpx_exec over MCP): every call the
// script makes is checked against the log of the paused run it resumes, place by place (the order
// the calls were made in). A call the paused run sent is never sent again: answered from the log, or,
// when that run ended before its answer came, failed with REPLAY_UNANSWERED. A call that differs from
// the log is an error; the call the user decided is sent once or refused; a place the log holds no
// call for (one the pause held back, or past the paused run's end) goes live. A live `ask` that nobody
// can answer pauses the run: the call is not sent, and every call after it is answered "paused"
// without being sent either. Calls already on their way when the pause came (made in parallel) are
// logged where they were made, with their answers, so a resume does not send them twice.

import { callError } from "../errors/frame-error.ts";
import { gateWithAsk } from "../hooks/build-gate.ts";
import type { Gate } from "../hooks/types.ts";
import { sha256 } from "../paths/content-file.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { LoggedCall, PendingApproval } from "./store.ts";

export interface CallLog {
  /** the paused run's calls by the place each was made at; null where it sent nothing */
  readonly recorded: readonly (LoggedCall | null)[];
  /** the call the user decided, and its place in the run */
  readonly decided?: { server: string; tool: string; argsHash: string; approved: boolean; reason?: string; at: number };
  /** this run's calls so far, by the order they were made (not answered): what a new pause records; holes where nothing was sent */
  readonly made: (LoggedCall | null)[];
  /** how many calls the run has made */
  n: number;
  /** set when an unanswerable `ask` paused the run */
  paused?: { server: string; tool: string; arguments: Record<string, unknown>; question: string; index: number };
}

export function newCallLog(resumed?: PendingApproval): CallLog {
  if (!resumed?.decision) return { recorded: [], made: [], n: 0 };
  const { server, tool, arguments: args, decision } = resumed;
  // a record written before pausedAt was kept held the calls before the paused one only
  const at = resumed.pausedAt ?? resumed.log.length;
  return {
    recorded: resumed.log,
    decided: {
      server,
      tool,
      argsHash: argsHashOf(args),
      approved: decision.approved,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      at,
    },
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
  /** the run's end (CallNotes.signal): an answer that comes after it is not the run's */
  notes?: { signal?: AbortSignal };
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
  const decidedHere = log.decided?.at === i ? log.decided : undefined;
  const r = decidedHere ? undefined : log.recorded[i];
  const expected = decidedHere ?? r;
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
  if (r) {
    log.made[i] = r;
    return r.answer ?? unansweredAnswer(req, i);
  }
  let answer: CallAnswer;
  if (decidedHere) {
    const d = decidedHere;
    answer = d.approved
      ? await sent(log, i, here, send(gateWithAsk(gate, async () => true)))
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
    answer = await sent(log, i, here, send(gate));
  } else {
    // nobody can answer here: an `ask` before the call pauses the run instead of refusing the call;
    // one after it (onSuccess) refuses as before, since pausing there would send the call twice
    let question: string | undefined;
    const asked = gateWithAsk(gate, async (q, where) => {
      if (where?.point !== "call" || where.phase !== "before") return undefined;
      question ??= q;
      return false;
    });
    // logged as sent before its answer: a run that ends first leaves it unanswered, never sent again
    log.made[i] = here;
    answer = await send(asked);
    if (question !== undefined) {
      log.made[i] = null;
      log.paused = { server: req.server, tool: req.tool, arguments: req.args, question, index: i };
      return pendingAnswer(req, question);
    }
  }
  // an answer that came after the run ended (its call cancelled by that end) is not one the run had: the
  // call stays logged as sent and unanswered, so a resume neither sends it again nor replays the cancel
  log.made[i] = req.notes?.signal?.aborted ? here : { ...here, answer };
  return answer;
}

/** a call on its way: in the log (sent, no answer yet) until its answer comes */
function sent(log: CallLog, i: number, here: LoggedCall, answer: Promise<CallAnswer>): Promise<CallAnswer> {
  log.made[i] = here;
  return answer;
}

function unansweredAnswer(req: Req, i: number): CallAnswer {
  return {
    ok: false,
    error: callError(
      "REPLAY_UNANSWERED",
      `call ${i + 1} to ${req.server}.${req.tool} was sent by the paused run, which ended before its answer came: ` +
        "it is not sent again (the server may have acted on it). Await every call before the run ends, or run it anew",
      { server: req.server, tool: req.tool, raw: null },
    ),
  };
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
