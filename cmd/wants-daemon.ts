// Whether a command goes to the daemon, in a module of its own: a local run asks it too, and should
// not load the daemon client to learn that it does not need one.

import type { Session } from "../lib/session/session.ts";

/** whether this command goes to the daemon: --remote, or the remote setting (MCPX_REMOTE, "remote" in a config) */
export function wantsDaemon(own: Record<string, unknown>, session: Session): boolean {
  return remoteByFlag(own) || session.get("remote");
}

/** --remote on the command line: known before config is read, so a run started early for a local run is not (cmd/main.ts) */
export function remoteByFlag(own: Record<string, unknown>): boolean {
  return own.remote === true;
}
