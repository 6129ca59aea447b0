// Whether a command goes to the daemon, in a module of its own: a local run asks it too, and should
// not load the daemon client to learn that it does not need one.

import type { Session } from "../lib/session/session.ts";

/** whether this command goes to the daemon: --remote, or the remote setting (MCPX_REMOTE, "remote" in a config) */
export function wantsDaemon(own: Record<string, unknown>, session: Session): boolean {
  return own.remote === true || session.get("remote");
}
