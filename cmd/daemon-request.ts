// The client half of call, ls, types, search, resource, prompt and approvals --remote: one JSON
// request to a daemon route, after refusing what cannot travel (flags that belong to the daemon). A
// route answers `{thrown}` for an error the command would have thrown locally (an unknown server,
// refused arguments): it is thrown here with its code, so the exit code and the message are the
// local ones.

import { sessionAddress } from "../lib/daemon/address.ts";
import { daemonJson } from "../lib/daemon/client.ts";
import { withDaemon } from "../lib/daemon/on-demand.ts";
import type { Thrown } from "../lib/daemon/thrown.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { refuseStayingFlags } from "../lib/exec/remote.ts";
import type { Catalogue } from "../lib/mcp/catalogue.ts";
import type { Session } from "../lib/session/session.ts";
import type { CommandName } from "../lib/settings/setting-decl.ts";

export async function askDaemon<T extends { thrown?: Thrown }>(
  session: Session,
  command: CommandName,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  /** sees the reply before its `thrown` is thrown (a route's notes are shown first, as they came first) */
  before?: (reply: T) => void,
): Promise<T> {
  refuseStayingFlags(session, command);
  const reply = await daemonRequest<T>(session, method, path, body);
  before?.(reply);
  if (reply.thrown) throw new McpxError(reply.thrown.message, reply.thrown.code);
  return reply;
}

/**
 * One request to the daemon at daemon.address, started on demand (daemon.autoStart), with nothing of
 * the caller's but the body: for a command with no hooks or limits to carry (approvals, approve, reject).
 */
export function daemonRequest<T>(session: Session, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const address = sessionAddress(session);
  return withDaemon(session, address, () => daemonJson<T>(address, session.get("daemon.token"), method, path, body));
}

/** the daemon's catalogue (GET /v1/tools): every server, or `only`; `list: false` for the names alone */
export async function remoteCatalogue(session: Session, command: CommandName, only?: string, list = true): Promise<Catalogue> {
  const query = new URLSearchParams();
  if (only !== undefined) query.set("server", only);
  if (!list) query.set("list", "none");
  const q = query.toString();
  return (await askDaemon<{ catalogue: Catalogue; thrown?: Thrown }>(session, command, "GET", `/v1/tools${q ? `?${q}` : ""}`)).catalogue;
}
