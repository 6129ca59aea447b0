// Reading what a hook said. A run or module hook answers with one JSON object on stdout (or
// nothing: no opinion); an MCP-driven hook tool answers with text that is either such an object or
// plain text in the seed-000 convention. Anything else is a hook failure, never a guess.

import { isPlainObject, typeName } from "../util/json-type.ts";
import { OUTPUT_KEYS, type Phase } from "./points.ts";

export type HookOutput = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** how much of unparseable output a failure quotes: enough to recognise it, not enough to flood a frame */
const QUOTE_LIMIT = 200;

/** stdout of a run/module hook: empty = {}, else exactly one JSON object (surrounding whitespace ok) */
export function parseHookOutput(stdout: string): HookOutput {
  if (stdout.trim() === "") return { ok: true, value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (err) {
    // the parser's message can quote the input too, so it is cut shorter than the quote itself
    const why = (err as Error).message;
    return { ok: false, reason: `output is not one JSON object: ${quote(stdout)} (${why.length > 80 ? `${why.slice(0, 80)}…` : why})` };
  }
  if (!isPlainObject(parsed)) return { ok: false, reason: `output is not one JSON object: got ${typeName(parsed)}, ${quote(stdout)}` };
  return { ok: true, value: parsed };
}

/**
 * The text of an MCP hook tool's result: a dial object when it is a JSON object whose keys are all
 * output keys, otherwise plain text. Non-empty plain text at `before` is an objection (seed 000:
 * "non-empty text = objection"); at any other phase there is nothing left to object to, so it is
 * advice. Empty text is no opinion.
 */
export function plainTextOutput(text: string, phase: Phase): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  if (trimmed.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isPlainObject(parsed) && Object.keys(parsed).every((k) => (OUTPUT_KEYS as readonly string[]).includes(k))) return parsed;
    } catch {
      // not JSON: plain text that starts with a brace
    }
  }
  return phase === "before" ? { refuse: trimmed } : { advise: trimmed };
}

function quote(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > QUOTE_LIMIT ? `${t.slice(0, QUOTE_LIMIT)}…` : t);
}
