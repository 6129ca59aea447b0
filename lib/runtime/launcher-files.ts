// The in-script runtime (launcher/runtime.ts and its imports sys.ts, unwrap.ts, wire.ts), embedded in
// the binary as text and written to a content-addressed directory in the cache. The host never
// imports these as modules: the bundler cannot embed one file both ways (bun 1.4: a text import and a
// module import of one path fail with "No matching export", in either order, and a "?text" query does
// not resolve under --compile). What the host runs of them (`mcpx call` unwraps results with
// unwrap.ts, the runner decodes frames with wire.ts) it evaluates from that same embedded text, so
// both sides run one piece of code. Evaluated in memory, not imported from the cache directory: Bun
// writes the transpiled form of an imported file of 4 KiB or more to its transpiler cache, whose
// path it fixes at start from XDG_CACHE_HOME, and an empty one put `bun/@t@/` in the working
// directory. Type-only imports of them are fine anywhere: they are erased before bundling.

import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error a text import of a .ts file
import runtimeSource from "../../launcher/runtime.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import unwrapSource from "../../launcher/unwrap.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysSource from "../../launcher/sys.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import wireSource from "../../launcher/wire.ts" with { type: "text" };
import { writeContentDir } from "../paths/content-file.ts";

const runtimeDirs = new Map<string, string>();

/**
 * The directory holding runtime.ts and its imports for this build of mcpx. Once per cache directory
 * and process: a run asks for it several times (the early runtime, the bundle, the wire), and each
 * time would hash all four sources again.
 */
function runtimeDir(cacheDir: string): string {
  let dir = runtimeDirs.get(cacheDir);
  // wire.ts sorts last, and writeContentDir writes it last: the set is complete when it is there
  if (dir === undefined || !existsSync(join(dir, "wire.ts"))) {
    const files = {
      "runtime.ts": runtimeSource as string,
      "sys.ts": sysSource as string,
      "unwrap.ts": unwrapSource as string,
      "wire.ts": wireSource as string,
    };
    dir = writeContentDir(join(cacheDir, "launch"), "rt-", files);
    runtimeDirs.set(cacheDir, dir);
  }
  return dir;
}

/**
 * The runtime as ONE plain-JS module, bundled once per runtime version (Bun.build, ~13 ms) and kept
 * beside its sources. Every module a script's runtime loads costs Bun ~7 ms of start-up (measured:
 * an empty script 19 ms, importing one tiny module 27 ms), so the launcher imports this instead of
 * runtime.ts and its imports. Runtime-neutral still: node: imports stay dynamic and external.
 */
export async function runtimeBundle(cacheDir: string): Promise<string> {
  const found = builtRuntimeBundle(cacheDir);
  if (found.exists) return found.path;
  const dir = runtimeDir(cacheDir);
  const bundle = found.path;
  const built = await Bun.build({ entrypoints: [join(dir, "runtime.ts")], target: "node", format: "esm", external: ["bun:ffi"] });
  if (!built.success || !built.outputs[0]) throw new Error(`mcpx: bundling the script runtime failed: ${built.logs.map(String).join("; ")}`);
  const tmp = `${bundle}.${process.pid}.tmp`;
  writeFileSync(tmp, await built.outputs[0].text(), { mode: 0o600 });
  renameSync(tmp, bundle);
  return bundle;
}

/** where the runtime bundle is, and whether it is built yet: synchronous, for a runtime started before config is read */
export function builtRuntimeBundle(cacheDir: string): { path: string; exists: boolean } {
  const path = join(runtimeDir(cacheDir), "runtime.bundle.mjs");
  return { path, exists: existsSync(path) };
}

/** the wire's decoders, from the very text the launcher's runtime is built from */
export async function loadWire(): Promise<typeof import("../../launcher/wire.ts")> {
  return evaluated(wireSource as string, "launcher/wire.ts");
}

export async function loadUnwrap(): Promise<(raw: unknown) => unknown> {
  return evaluated<{ unwrap: (raw: unknown) => unknown }>(unwrapSource as string, "launcher/unwrap.ts").unwrap;
}

let transpiler: InstanceType<typeof Bun.Transpiler> | undefined;
const modules = new Map<string, unknown>();

/**
 * An import-free module's exports, from its TypeScript text: its types stripped (Bun.Transpiler, in
 * memory) and its code run as a function body, its `export` keywords dropped and its exports returned.
 * Once per process and file.
 */
function evaluated<T>(source: string, file: string): T {
  let mod = modules.get(file) as T | undefined;
  if (mod !== undefined) return mod;
  transpiler ??= new Bun.Transpiler({ loader: "ts", minifyWhitespace: true });
  const { exports, imports } = transpiler.scan(source);
  if (imports.length > 0) throw new Error(`internal: ${file} imports ${imports.map((i) => i.path).join(", ")}; the host evaluates it only import-free`);
  const declaration = /(^|[;}\n])export (?=(?:async )?(?:function|const|let|class)\b)/g;
  const js = transpiler.transformSync(source).replace(declaration, "$1");
  if (/(^|[;}\n])export\b/.test(js)) throw new Error(`internal: ${file} has an export the host cannot evaluate: export declarations only`);
  mod = new Function(`"use strict";${js};return{${exports.join(",")}};`)() as T;
  modules.set(file, mod);
  return mod;
}
