// Where mcpx keeps its files, by the XDG rules, always from an explicit environment so tests can
// isolate HOME without touching process.env.

import { homedir } from "node:os";
import { join } from "node:path";

type Env = Record<string, string | undefined>;

const home = (env: Env) => env.HOME || homedir();

export function cacheDir(env: Env): string {
  return join(env.XDG_CACHE_HOME || join(home(env), ".cache"), "mcpx");
}

export function configHome(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(home(env), ".config"), "mcpx");
}

export function stateDir(env: Env): string {
  return join(env.XDG_STATE_HOME || join(home(env), ".local", "state"), "mcpx");
}

/** short, private directory for unix sockets (their paths must stay under ~100 bytes) */
export function runtimeDir(env: Env): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  return env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, "mcpx") : join("/tmp", `mcpx-${uid}`);
}
