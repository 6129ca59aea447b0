// Where the daemon listens and where --remote connects, from the daemon.address setting. Pure: the
// text, the environment and the config chain in, a parsed address or an error that names the setting
// out. A unix socket is the default, one per user and config chain; TCP is loopback only (and the
// server also insists on daemon.token).

import { isAbsolute, join } from "node:path";
import { userConfigFile } from "../config/find.ts";
import { runtimeDir } from "../paths/dirs.ts";
import type { Session } from "../session/session.ts";
import { SettingsError } from "../settings/resolve.ts";
import { sha256 } from "../paths/content-file.ts";

export type DaemonAddress = { kind: "unix"; path: string } | { kind: "tcp"; host: "127.0.0.1" | "::1"; port: number };

/** the spellings a TCP address may take; the host part decides which loopback address is bound */
const TCP_HOSTS: Record<string, "127.0.0.1" | "::1"> = { "127.0.0.1": "127.0.0.1", "[::1]": "::1", localhost: "127.0.0.1" };

const ACCEPTED_ADDRESSES =
  "an absolute unix socket path (optionally unix:/path), or http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT (TCP is loopback only)";

/**
 * The socket a daemon uses when daemon.address is empty: one per user (the runtime directory is the
 * user's) and config chain. The user's own config alone gets `daemon.sock`; a chain with a project
 * file (or --config) gets `d-HASH.sock`, HASH standing for the chain's paths, so a `--remote` run in
 * one project never reaches the daemon, servers and hooks another project's config started. The
 * name fits the runtime directory's socket-length budget (lib/paths/dirs.ts).
 */
export function defaultSocketPath(env: Record<string, string | undefined>, configFiles: readonly string[] = []): string {
  const user = userConfigFile(env);
  const chain = configFiles.filter((f) => f !== user);
  if (chain.length === 0) return join(runtimeDir(env), "daemon.sock");
  const hash = sha256(chain.join("\0")).slice(0, 10);
  return join(runtimeDir(env), `d-${hash}.sock`);
}

/** daemon.address as a session has it: the daemon's own (`allowPortZero`) or the one a client connects to */
export function sessionAddress(session: Session, allowPortZero = false): DaemonAddress {
  const where = `daemon.address (${session.settings.get("daemon.address")!.origin})`;
  return parseAddress(session.get("daemon.address"), session.env, where, allowPortZero, configPaths(session));
}

/** the config chain's paths, lowest precedence first */
export function configPaths(session: Session): string[] {
  return session.config.files.map((f) => f.path);
}

/**
 * Parses daemon.address. `where` names the value in errors (the setting and its origin).
 * `allowPortZero`: a daemon may ask for any free port (it prints the one it got); a client may not.
 * `configFiles`: the chain the empty (default) address is chosen by.
 */
export function parseAddress(
  text: string,
  env: Record<string, string | undefined>,
  where = "daemon.address",
  allowPortZero = false,
  configFiles: readonly string[] = [],
): DaemonAddress {
  const raw = text.trim();
  if (raw === "") return { kind: "unix", path: defaultSocketPath(env, configFiles) };
  const bad = (why: string): never => {
    throw new SettingsError(`${where} "${text}": ${why}; use ${ACCEPTED_ADDRESSES}`);
  };
  if (raw.startsWith("unix:")) {
    const path = raw.slice(5).replace(/^\/\/(?=\/)/, "");
    if (!isAbsolute(path)) bad("a socket path must be absolute (the daemon and its clients may run in different directories)");
    return { kind: "unix", path };
  }
  if (isAbsolute(raw)) return { kind: "unix", path: raw };
  const m = /^http:\/\/(\[::1\]|127\.0\.0\.1|localhost):(\d{1,5})\/?$/.exec(raw);
  if (!m) {
    if (/^https?:\/\//.test(raw))
      bad(raw.startsWith("https:") ? "TLS is not served (TCP is loopback only, so use http://)" : "TCP listens on loopback only, on an explicit port");
    bad(raw.includes("://") ? "not a loopback URL" : "a socket path must be absolute (the daemon and its clients may run in different directories)");
  }
  const port = Number(m![2]);
  if (port > 65535) bad(`port ${port} is out of range`);
  if (port === 0 && !allowPortZero) bad("port 0 picks a free port when the daemon starts; give a client the port the daemon printed");
  return { kind: "tcp", host: TCP_HOSTS[m![1]!]!, port };
}

/** how an address is shown: the socket path, or the URL */
export function formatAddress(a: DaemonAddress): string {
  return a.kind === "unix" ? a.path : `http://${a.host === "::1" ? "[::1]" : a.host}:${a.port}`;
}

/** the URL a client fetches for a route; on a unix socket the host part is only a placeholder */
export function routeUrl(a: DaemonAddress, route: string): string {
  return a.kind === "unix" ? `http://localhost${route}` : `${formatAddress(a)}${route}`;
}
