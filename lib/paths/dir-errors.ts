// A directory mcpx keeps its files in that cannot take them (full, read-only, forbidden, a file where
// a directory should be) is the machine's setup, not a bug: one line naming the path, the variable
// that chose it and how to move it, never a stack of minified source.

import { join, sep } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** errno codes that say a file cannot be made where mcpx puts it, in words */
const UNWRITABLE: Record<string, string> = {
  ENOSPC: "the file system is full",
  EDQUOT: "the user's disk quota is used up",
  EROFS: "the file system is read-only",
  EACCES: "this user may not write there",
  EPERM: "this user may not write there",
  ENOTDIR: "a file stands where a directory should be",
};

/** where mcpx's files go, most specific first: the directory, what decided it and the fix */
function places(env: Env): Array<{ dir: string; what: string; fix: string }> {
  const out: Array<{ dir: string; what: string; fix: string }> = [];
  const xdg = (name: string, what: string) => {
    const v = env[name];
    if (v) out.push({ dir: v, what: `${what} (${name}=${v})`, fix: `set ${name} to a writable directory with space, or unset it` });
  };
  xdg("XDG_CACHE_HOME", "its cache directory");
  xdg("XDG_STATE_HOME", "its state directory");
  xdg("XDG_RUNTIME_DIR", "its socket directory");
  if (env.HOME)
    out.push({
      dir: env.HOME,
      what: `its directories under HOME (${env.HOME})`,
      fix: "make room there, or set XDG_CACHE_HOME and XDG_STATE_HOME to writable directories",
    });
  const tmp = env.TMPDIR || "/tmp";
  out.push({
    dir: tmp,
    what: `its directory in ${tmp}, used because HOME cannot hold mcpx's files`,
    fix: "set HOME, or XDG_CACHE_HOME and XDG_STATE_HOME, to writable directories (or TMPDIR to one)",
  });
  return out.sort((a, b) => b.dir.length - a.dir.length);
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * One line for an error writing a path under one of mcpx's directories, with the directory, what
 * chose it and the fix; undefined for any other error (which stays a bug with its stack).
 */
export function dirErrorLine(err: unknown, env: Env): string | undefined {
  const e = err as { code?: unknown; path?: unknown; syscall?: unknown } | null;
  const why = typeof e?.code === "string" ? UNWRITABLE[e.code] : undefined;
  if (!why || typeof e?.path !== "string") return undefined;
  const path = join(e.path);
  const place = places(env).find((p) => inside(path, join(p.dir)));
  if (!place) return undefined;
  return `cannot write ${path} (${e.code}${typeof e.syscall === "string" ? ` on ${e.syscall}` : ""}: ${why}), in ${place.what}: ${place.fix}`;
}
