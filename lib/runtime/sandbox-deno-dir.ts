// The DENO_DIR a sandboxed Deno starts with: mcpx's own, beside its other caches, sharing only the
// package caches of the user's. Deno writes web storage (the Cache API's `caches`, `localStorage`)
// under DENO_DIR/location_data with no --allow-write at all, from the script and from any Worker it
// starts (measured on 2.9: one `caches.open().put()` loop left 300 MB there, and every run a
// directory). Here location_data is an empty read-only file, so Deno cannot make a directory under
// it and both APIs throw; deleting the globals in the launcher would not do, a Worker gets them back.

import { chmodSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** the package caches a sandboxed run shares with the user's Deno: what --cached-only reads, and autoInstall fills */
const SHARED = ["npm", "remote"] as const;

const ready = new Set<string>();

/** the sandbox's DENO_DIR under cacheDir, made (once per process) if it is not there */
export function sandboxDenoDir(cacheDir: string, env: Record<string, string | undefined>): string {
  const dir = join(cacheDir, "sandbox-deno");
  if (ready.has(dir)) return dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const real = userDenoDir(env);
  for (const name of SHARED) {
    const target = join(real, name);
    mkdirSync(target, { recursive: true });
    linkOnce(target, join(dir, name));
  }
  blockWebStorage(join(dir, "location_data"));
  ready.add(dir);
  return dir;
}

/** Deno's own default DENO_DIR for this environment (deno info prints the same) */
function userDenoDir(env: Record<string, string | undefined>): string {
  if (env.DENO_DIR) return env.DENO_DIR;
  const home = env.HOME ?? "/";
  if (process.platform === "darwin") return join(home, "Library", "Caches", "deno");
  return join(env.XDG_CACHE_HOME || join(home, ".cache"), "deno");
}

/** path as a link to target; one made by an earlier run is kept, one to another DENO_DIR is made again */
function linkOnce(target: string, path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st?.isSymbolicLink() && readlinkSync(path) === target) return;
  if (st) rmSync(path, { recursive: true, force: true });
  try {
    symlinkSync(target, path);
  } catch (err) {
    // a run beside this one made it first
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}

function blockWebStorage(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st?.isFile()) return;
  if (st) rmSync(path, { recursive: true, force: true });
  try {
    writeFileSync(path, "", { flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  chmodSync(path, 0o444);
}
