// Which file `mcpx run NAME` means: a path that exists, else a named script in .mcpx/scripts/NAME.ts
// (or .js/.mjs) in the nearest directory walking up from the working directory.

import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { ancestors } from "./ancestors.ts";

const EXTS = [".ts", ".mts", ".js", ".mjs"];

export function resolveScriptPath(ref: string, cwd: string): string | undefined {
  const direct = resolve(cwd, ref);
  if (existsSync(direct) && statSync(direct).isFile()) return direct;
  if (ref.includes("/")) return undefined;
  for (const dir of ancestors(cwd)) {
    for (const ext of ["", ...EXTS]) {
      const candidate = join(dir, ".mcpx", "scripts", ref + ext);
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
  }
  return undefined;
}
