// The ad-hoc server flags of call, ls, types, run and exec: a server given on the command line, merged
// with the configured ones for this command only (lib/config/ad-hoc.ts builds it and names it).

import { adHocServer } from "../lib/config/ad-hoc.ts";
import type { ServerConfig } from "../lib/config/server-config.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import type { ParsedArgs } from "../lib/settings/flags.ts";
import { AD_HOC_FLAGS } from "./own-flags.ts";
import { sessionFromArgs, type Session } from "../lib/session/session.ts";

/** the ad-hoc server a command line gives, checked against the configured names; undefined when it gives none */
function adHocFromArgs(parsed: Pick<ParsedArgs, "own">, configured: Readonly<Record<string, ServerConfig>>): ServerConfig | undefined {
  const fail = (message: string): never => {
    throw new UsageError(message);
  };
  const server = adHocServer(
    {
      stdio: parsed.own.stdio as string | undefined,
      httpUrl: parsed.own["http-url"] as string | undefined,
      name: parsed.own.name as string | undefined,
      env: process.env,
    },
    fail,
  );
  if (server && Object.hasOwn(configured, server.name)) {
    fail(
      `${server.origin.split(" ")[0]} would add a server named "${server.name}", ` +
        `but ${configured[server.name]!.origin} configures one by that name: pick another with --name`,
    );
  }
  return server;
}

/** sessionFromArgs, with the ad-hoc server (if any) among the session's servers */
export function sessionWithAdHoc(parsed: Pick<ParsedArgs, "own" | "settings">): Session {
  const session = sessionFromArgs(parsed);
  const server = adHocFromArgs(parsed, session.config.servers);
  if (server) session.config.servers = { ...session.config.servers, [server.name]: server };
  return session;
}

/** the ad-hoc flag the command line gives (--stdio, --http-url, --name), if any */
export function adHoc(own: Record<string, unknown>): string | undefined {
  return Object.keys(AD_HOC_FLAGS).find((f) => own[f] !== undefined);
}

/** an ad-hoc server is this process's: a daemon would have to start it, so it does not travel */
export function refuseAdHocRemote(own: Record<string, unknown>): void {
  const flag = adHoc(own);
  if (flag)
    throw new UsageError(
      `--${flag} does not travel with --remote: the daemon runs its own configured servers; ` +
        `configure the server in the daemon's config, or run without --remote`,
    );
}

/** the name of the session's ad-hoc server (its origin is the flag that gave it), if it has one */
export function adHocName(session: Session): string | undefined {
  return Object.values(session.config.servers).find((s) => /^--(stdio|http-url) /.test(s.origin))?.name;
}
