// Where the daemon listens and where --remote connects, from the daemon.address setting. Pure: the
// text and the environment in, a parsed address or an error that names the setting out. A unix
// socket is the default; TCP is loopback only (and the server also insists on daemon.token).

import { isAbsolute, join } from "node:path";
import { runtimeDir } from "../paths/dirs.ts";
import { SettingsError } from "../settings/resolve.ts";

export type DaemonAddress = { kind: "unix"; path: string } | { kind: "tcp"; host: "127.0.0.1" | "::1"; port: number };

/** the spellings a TCP address may take; the host part decides which loopback address is bound */
const TCP_HOSTS: Record<string, "127.0.0.1" | "::1"> = { "127.0.0.1": "127.0.0.1", "[::1]": "::1", localhost: "127.0.0.1" };

const ACCEPTED_ADDRESSES =
  "an absolute unix socket path (optionally unix:/path), or http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT (TCP is loopback only)";

/** the socket a daemon uses when daemon.address is empty */
export function defaultSocketPath(env: Record<string, string | undefined>): string {
  return join(runtimeDir(env), "daemon.sock");
}

/**
 * Parses daemon.address. `where` names the value in errors (the setting and its origin).
 * `allowPortZero`: a daemon may ask for any free port (it prints the one it got); a client may not.
 */
export function parseAddress(text: string, env: Record<string, string | undefined>, where = "daemon.address", allowPortZero = false): DaemonAddress {
  const raw = text.trim();
  if (raw === "") return { kind: "unix", path: defaultSocketPath(env) };
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
