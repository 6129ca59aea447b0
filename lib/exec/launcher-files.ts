// The in-script runtime (launcher/runtime.ts and its import unwrap.ts), embedded in the binary as
// text and written to a content-addressed directory in the cache. The host never imports these as
// modules (the bundler cannot embed one file both ways); `mcpx call` loads unwrap.ts from that same
// directory, so scripts and `mcpx call` unwrap results with one piece of code.

import { existsSync, renameSync, writeFileSync } from "node:fs";
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

/**
 * The runtime as ONE plain-JS module, bundled once per runtime version (Bun.build, ~13 ms) and kept
 * beside its sources. Every module a script's runtime loads costs Bun ~7 ms of start-up (measured:
 * an empty script 19 ms, importing one tiny module 27 ms), so the launcher imports this instead of
 * runtime.ts, sys.ts and unwrap.ts. Runtime-neutral still: node: imports stay dynamic and external.
 */
export async function runtimeBundle(cacheDir: string): Promise<string> {
  const dir = runtimeDir(cacheDir);
  const bundle = join(dir, "runtime.bundle.mjs");
  if (existsSync(bundle)) return bundle;
  const built = await Bun.build({ entrypoints: [join(dir, "runtime.ts")], target: "node", format: "esm", external: ["bun:ffi"] });
  if (!built.success || !built.outputs[0]) throw new Error(`mcpx: bundling the script runtime failed: ${built.logs.map(String).join("; ")}`);
  const tmp = `${bundle}.${process.pid}.tmp`;
  writeFileSync(tmp, await built.outputs[0].text(), { mode: 0o600 });
  renameSync(tmp, bundle);
  return bundle;
}

export async function loadUnwrap(cacheDir: string): Promise<(raw: unknown) => unknown> {
  const mod = (await import(join(runtimeDir(cacheDir), "unwrap.ts"))) as { unwrap: (raw: unknown) => unknown };
  return mod.unwrap;
}
