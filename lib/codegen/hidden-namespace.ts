// A server whose identifier is taken (a JavaScript or runtime global like fetch, an mcpx global like
// log, or another server's identifier) gets no global: `fetch.echo(…)` then reaches the runtime's
// fetch and fails with "fetch.echo is not a function", which names neither the server nor the way
// to reach it. The script's error gets that said, so every surface (stderr, --json, mcpx_exec) shows it.

import type { Binding } from "./identifiers.ts";
import type { SerializedError } from "../runtime/run-spec.ts";

/** the error with a note naming each hidden server it mentions as IDENTIFIER.…, or the error as it was */
export function withHiddenNamespaceNote(error: SerializedError, bindings: readonly Binding[]): SerializedError {
  const notes: string[] = [];
  for (const b of bindings) {
    if (b.hiddenBecause === undefined) continue;
    const id = b.identifier.replace(/[$]/g, "\\$");
    // "fetch.echo is not a function" (Bun, V8) or "undefined is not an object (evaluating 'window.echo')"
    const used = new RegExp(`(^|[^\\w$./-])${id}\\.([\\w$]+)`).exec(error.message);
    if (!used) continue;
    notes.push(
      `server ${JSON.stringify(b.name)} is not the global ${b.identifier} (${b.hiddenBecause}): ` +
        `call its tools as tools[${JSON.stringify(b.name)}].${used[2]}(…)`,
    );
  }
  return notes.length ? { ...error, message: `${error.message}: ${notes.join("; ")}` } : error;
}
