// The phases after an operation, one loop for the script point and the call point: onSuccess may
// refuse or replace the value; onError may recover with a value, or ask for the operation again
// within hooks.retryBudget. What the operation is (a script run, an upstream call) and how a
// refusal reads are the caller's; what the hooks decided about the outcome is decided here.

import { runGate } from "./gate.ts";
import type { PointName } from "./points.ts";
import type { Gate, HookFrameBody, Payload } from "./types.ts";

interface OutcomeError {
  name: string;
  message: string;
  code?: string;
}

/** one attempt's outcome, as the operation reports it */
export type Attempted<E extends OutcomeError> = { ok: true; value: unknown } | { ok: false; error: E };

/** how the operation ended once its onSuccess and onError hooks ran */
export type Settled<E extends OutcomeError> = { ok: true; value: unknown; recovered: boolean } | { ok: false; error: E; refused: boolean };

export interface RecoveryRules<E extends OutcomeError> {
  /** the error an onSuccess refusal makes of the value */
  refused(r: { hook: string; reason: string }): E;
  /** the value an onError apply recovers with, in the operation's own shape */
  recovered(value: unknown): unknown;
  /** an error no hook may retry past (an interrupt is the user's word, not a failure) */
  final?(error: E): boolean;
}

/**
 * Runs `attempt` until its outcome is settled. The payload carries the value (`result`) into
 * onSuccess and the error into onError; an error that ends the loop stays on it for the suffix.
 * An attempt that returns undefined stops the loop, with undefined: the operation could not start.
 */
export async function settleOutcome<E extends OutcomeError>(
  gate: Gate,
  point: Extract<PointName, "script" | "call" | "resource.read" | "prompt.get">,
  payload: Payload,
  hookFrame: (f: HookFrameBody) => void,
  attempt: () => Promise<Attempted<E> | undefined>,
  rules: RecoveryRules<E>,
): Promise<Settled<E> | undefined> {
  const budget = gate.policy.retryBudget;
  for (let retries = 0; ; retries++) {
    const outcome = await attempt();
    if (!outcome) return undefined;
    if (outcome.ok) {
      payload.result = outcome.value;
      const d = await runGate(gate, point, "onSuccess", payload, hookFrame);
      return d.refused ? { ok: false, error: rules.refused(d.refused), refused: true } : { ok: true, value: payload.result, recovered: false };
    }
    const final = rules.final?.(outcome.error) === true;
    payload.error = { name: outcome.error.name, message: outcome.error.message, code: outcome.error.code };
    const d = await runGate(gate, point, "onError", payload, hookFrame, final ? 0 : budget - retries);
    if (d.replaced) return { ok: true, value: rules.recovered(d.value), recovered: true };
    if (!d.retry || retries >= budget || final) return { ok: false, error: outcome.error, refused: false };
    delete payload.error;
  }
}
