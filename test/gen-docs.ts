// Rewrites the generated parts of the docs from their registries: bun run test/gen-docs.ts
// (test/unit/docs.test.ts, test/unit/hooks-docs.test.ts and test/unit/error-codes.test.ts fail when a generated part is stale and
// say to run this).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withGeneratedHooks } from "../lib/hooks/docs.ts";
import { withGeneratedSettings } from "../lib/settings/docs.ts";
import { withGeneratedRoutes } from "../lib/daemon/docs.ts";
import { withGeneratedExitCodes, withGeneratedFrameCodes } from "../lib/errors/docs.ts";

export const SETTINGS_DOC = join(import.meta.dir, "..", "docs", "settings.md");
export const HOOKS_DOC = join(import.meta.dir, "..", "docs", "hooks.md");
export const EXIT_CODES_DOC = join(import.meta.dir, "..", "docs", "exit-codes.md");
export const FRAMES_DOC = join(import.meta.dir, "..", "docs", "frames.md");

/** each generated document and the function that rewrites its generated part */
export const GENERATED_DOCS: ReadonlyArray<{ path: string; regenerate: (doc: string) => string }> = [
  { path: SETTINGS_DOC, regenerate: withGeneratedSettings },
  { path: HOOKS_DOC, regenerate: withGeneratedHooks },
  { path: join(import.meta.dir, "..", "docs", "daemon.md"), regenerate: withGeneratedRoutes },
  { path: EXIT_CODES_DOC, regenerate: withGeneratedExitCodes },
  { path: FRAMES_DOC, regenerate: withGeneratedFrameCodes },
];

if (import.meta.main) {
  for (const { path, regenerate } of GENERATED_DOCS) {
    const before = readFileSync(path, "utf8");
    const after = regenerate(before);
    if (after !== before) writeFileSync(path, after);
    console.log(`${path}: ${after === before ? "up to date" : "rewritten"}`);
  }
}
