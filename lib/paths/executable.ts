// Finding a program the way a shell does: the execute bit is checked and directories are skipped, so
// a non-executable file early on PATH does not hide a real one later. Used for a `run` hook's
// program when the config loads (a missing one is refused before anything runs) and for the deno
// and node script runtimes.

import { accessSync, constants, type Stats, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export type ExecutableCheck = { ok: true; path: string } | { ok: false; problem: "missing" | "directory" | "not-executable" | "not-on-path"; path?: string };

/** an existing regular file with an execute bit for us */
function executableState(path: string): "ok" | "missing" | "directory" | "not-executable" {
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return "missing";
  }
  if (st.isDirectory()) return "directory";
  try {
    accessSync(path, constants.X_OK);
    return "ok";
  } catch {
    return "not-executable";
  }
}

/**
 * argv[0] with a "/" is a path (relative to baseDir) and must itself be executable; a bare name is
 * looked up on PATH. Empty PATH entries are skipped: treating them as "." would make a hook's
 * meaning depend on the directory mcpx happens to start in.
 */
export function findExecutable(cmd: string, baseDir: string, pathVar: string | undefined): ExecutableCheck {
  if (cmd.includes("/")) {
    const path = isAbsolute(cmd) ? cmd : resolve(baseDir, cmd);
    const state = executableState(path);
    return state === "ok" ? { ok: true, path } : { ok: false, problem: state, path };
  }
  let nonExecutable: string | undefined;
  for (const dir of (pathVar ?? "").split(":")) {
    if (!dir) continue;
    const candidate = join(dir, cmd);
    const state = executableState(candidate);
    if (state === "ok") return { ok: true, path: candidate };
    if (state === "not-executable") nonExecutable ??= candidate;
  }
  return nonExecutable ? { ok: false, problem: "not-executable", path: nonExecutable } : { ok: false, problem: "not-on-path" };
}
