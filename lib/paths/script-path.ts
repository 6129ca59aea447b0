// Which file `mcpx run NAME` means: a path that exists, else a named script in .mcpx/scripts/NAME.ts
// (or .js/.mjs) in the nearest directory walking up from the working directory, else a skill there,
// .mcpx/skills/NAME.ts. Scripts come first: a skill is what an agent saved, and a script of the same
// name is the user's own.

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
    const skill = join(dir, ".mcpx", "skills", `${ref}.ts`);
    if (existsSync(skill) && statSync(skill).isFile()) return skill;
  }
  return undefined;
}

/** whether `file` is a skill (.mcpx/skills/NAME.ts): its default export takes one object of arguments */
export function isSkillPath(file: string): boolean {
  return /[\\/]\.mcpx[\\/]skills[\\/][^\\/]+\.ts$/.test(file);
}
