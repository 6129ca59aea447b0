// One answer line on the run's socket (host → launcher, launcher/wire.ts HostAnswer): what
// JSON.stringify({ id, ...answer }) writes, made without that copy of the answer for a call that
// succeeded (every call of a script's loop; docs/decisions/0011).

import type { SerializedError } from "./run-spec.ts";

/** what a script's call is answered with: the tool's result, or the error it failed with */
export type CallAnswer = { ok: true; value: unknown } | { ok: false; error: SerializedError };

/** the answer to call frame `id`, as one line; byte for byte JSON.stringify({ id, ...answer }) + "\n" */
export function answerLine(id: number, a: CallAnswer): string {
  // undefined: a value JSON has no text for (stringify then leaves the key out), said the long way
  const value = a.ok ? JSON.stringify(a.value) : undefined;
  return value !== undefined ? `{"id":${id},"ok":true,"value":${value}}\n` : JSON.stringify({ id, ...a }) + "\n";
}
