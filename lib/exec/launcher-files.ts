// The in-script runtime (launcher/runtime.ts and its import unwrap.ts), embedded in the binary as
// text and written to a content-addressed directory in the cache. The host never imports these as
// modules (the bundler cannot embed one file both ways); `mcpx call` loads unwrap.ts from that same
// directory, so scripts and `mcpx call` unwrap results with one piece of code.

import { join } from "node:path";
// @ts-expect-error a text import of a .ts file
import runtimeSource from "../../launcher/runtime.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import unwrapSource from "../../launcher/unwrap.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysSource from "../../launcher/sys.ts" with { type: "text" };
import { writeContentDir } from "../paths/content-file.ts";

/** the directory holding runtime.ts and unwrap.ts for this build of mcpx */
export function runtimeDir(cacheDir: string): string {
  return writeContentDir(join(cacheDir, "launch"), "rt-", { "runtime.ts": runtimeSource as string, "sys.ts": sysSource as string, "unwrap.ts": unwrapSource as string });
}

export async function loadUnwrap(cacheDir: string): Promise<(raw: unknown) => unknown> {
  const mod = (await import(join(runtimeDir(cacheDir), "unwrap.ts"))) as { unwrap: (raw: unknown) => unknown };
  return mod.unwrap;
}
