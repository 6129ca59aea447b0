// An error a route's command would have thrown locally, answered as a value (200 `{thrown}`) so the
// client throws it again with the same code: the same message and exit code as the local command.

import { McpxError } from "../errors/mcpx-error.ts";

export interface Thrown {
  name: string;
  code: McpxError["code"];
  message: string;
}

/** runs `f`; an McpxError it throws becomes `{thrown}` (anything else is a bug and propagates) */
export async function catchThrown<T>(f: () => Promise<T>): Promise<T | { thrown: Thrown }> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof McpxError)) throw e;
    return { thrown: { name: e.name, code: e.code, message: e.message } };
  }
}
