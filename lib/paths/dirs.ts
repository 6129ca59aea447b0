// Where mcpx keeps its files, by the XDG rules, always from an explicit environment so tests can
// isolate HOME without touching process.env.

import { accessSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { dirname, join } from "node:path";
import { unsafeDirReason } from "./socket-dir.ts";

type Env = Record<string, string | undefined>;

/** node:os, loaded only where HOME or TMPDIR is not set: every command reads these dirs at start-up */
const os = () => require("node:os") as typeof import("node:os");

/**
 * Where the files mcpx keeps under HOME go when HOME cannot hold them: no HOME and no passwd entry
 * (a container running as a bare uid), or a HOME it cannot write. A private directory under TMPDIR,
 * said once on stderr by the session (`homeNote`), never a stack trace.
 */
let fallback: string | undefined;
function fallbackDir(env: Env): string {
  if (fallback) return fallback;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const base = env.TMPDIR || os().tmpdir();
  const mine = join(base, `mcpx-home-${uid}`);
  try {
    mkdirSync(mine, { recursive: true, mode: 0o700 });
    // someone else's directory (or a link, or one others may enter) at the name: never use it, take a fresh one
    fallback = unsafeDirReason(lstatSync(mine), uid) === undefined ? mine : mkdtempSync(join(base, `mcpx-home-${uid}-`));
  } catch {
    fallback = mkdtempSync(join(base, `mcpx-home-${uid}-`));
  }
  return fallback;
}

/** HOME, else the passwd entry's home; undefined where neither exists */
function homeOf(env: Env): string | undefined {
  if (env.HOME) return env.HOME;
  try {
    return os().homedir() || undefined;
  } catch {
    return undefined; // uv_os_homedir: no HOME and no passwd entry
  }
}

/** whether files can be created at `dir`: it, or the nearest directory above it that exists, is writable */
function writable(dir: string): boolean {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  try {
    accessSync(d, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** `$XDG_VAR/mcpx` when set, else HOME/rel/mcpx when HOME can hold it, else the private fallback */
function userDir(env: Env, xdg: string, rel: string, name: string): string {
  const set = env[xdg];
  if (set) return join(set, "mcpx");
  const home = homeOf(env);
  const dir = home ? join(home, rel, "mcpx") : undefined;
  return dir && writable(dir) ? dir : join(fallbackDir(env), name);
}

export function cacheDir(env: Env): string {
  return userDir(env, "XDG_CACHE_HOME", ".cache", "cache");
}

export function stateDir(env: Env): string {
  return userDir(env, "XDG_STATE_HOME", join(".local", "state"), "state");
}

/** the one line a session says when HOME cannot hold mcpx's files; undefined when it can */
export function homeNote(env: Env): string | undefined {
  if (env.XDG_CACHE_HOME && env.XDG_STATE_HOME) return undefined;
  const home = homeOf(env);
  if (home && writable(join(home, ".cache")) && writable(join(home, ".local", "state"))) return undefined;
  const why = home ? `HOME (${home}) is not writable` : "HOME is not set and this user has no passwd entry";
  return `${why}: mcpx keeps its caches in ${fallbackDir(env)} (set HOME, or XDG_CACHE_HOME and XDG_STATE_HOME, to choose)`;
}

/**
 * The longest directory a unix socket of ours may live in: sun_path holds 107 bytes, and the longest
 * name we bind is a run's channel, "/" + 12 characters + ".sock".
 */
const SOCKET_DIR_MAX = 107 - 18;

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
