// Where mcpx keeps its files, by the XDG rules, always from an explicit environment so tests can
// isolate HOME without touching process.env.

import { homedir } from "node:os";
import { join } from "node:path";

type Env = Record<string, string | undefined>;

const home = (env: Env) => env.HOME || homedir();

export function cacheDir(env: Env): string {
  return join(env.XDG_CACHE_HOME || join(home(env), ".cache"), "mcpx");
}

export function stateDir(env: Env): string {
  return join(env.XDG_STATE_HOME || join(home(env), ".local", "state"), "mcpx");
}

/**
 * The longest directory a unix socket of ours may live in: sun_path holds 107 bytes, and the longest
 * name we bind is a run's channel, "/" + 12 characters + ".sock".
 */
export const SOCKET_DIR_MAX = 107 - 18;

/**
 * The private directory for unix sockets (the daemon's default socket, each run's call channel):
 * $XDG_RUNTIME_DIR/mcpx, else the state directory, so that two users or two isolated HOMEs never
 * share a socket. A directory too deep for a socket path falls back to /tmp/mcpx-UID-HASH, the hash
 * of the directory it stands for, which keeps that separation.
 */
export function runtimeDir(env: Env): string {
  const dir = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, "mcpx") : stateDir(env);
  if (Buffer.byteLength(dir) <= SOCKET_DIR_MAX) return dir;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return join("/tmp", `mcpx-${uid}-${Bun.hash(dir).toString(16).slice(0, 12)}`);
}
