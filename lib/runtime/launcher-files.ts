// The files a run's runtime loads, all content-addressed in the cache: the in-script runtime
// (launcher/runtime.ts and the launcher modules it imports, embedded in the binary as text),
// the entry of a runtime started before its run, the run's launcher, and Node's transpiled copies.
// The in-script runtime is written to a directory of its own. The host never
// imports these as modules: the bundler cannot embed one file both ways (bun 1.4: a text import and a
// module import of one path fail with "No matching export", in either order, and a "?text" query does
// not resolve under --compile). What the host runs of them (`mcpx call` unwraps results with
// unwrap.ts, the runner decodes frames with wire.ts) it evaluates from that same embedded text, so
// both sides run one piece of code. Evaluated in memory, not imported from the cache directory: Bun
// writes the transpiled form of an imported file of 4 KiB or more to its transpiler cache, whose
// path it fixes at start from XDG_CACHE_HOME, and an empty one put `bun/@t@/` in the working
// directory. Type-only imports of them are fine anywhere: they are erased before bundling.

import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fillTemplate, phaseBlock, type PhaseLine } from "../../launcher/template.ts";
import type { ScriptPhase } from "../settings/registry.ts";
// @ts-expect-error a text import of a .ts file
import artifactSource from "../../launcher/artifact.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import base64Source from "../../launcher/base64.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import captureSource from "../../launcher/capture.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import channelSource from "../../launcher/channel.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import globalsSource from "../../launcher/globals.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import handoffSource from "../../launcher/handoff.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import runtimeSource from "../../launcher/runtime.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import scriptLoadSource from "../../launcher/script-load.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import serializeSource from "../../launcher/serialize.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysSource from "../../launcher/sys.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysBunSource from "../../launcher/sys-bun.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysDenoSource from "../../launcher/sys-deno.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysNodeSource from "../../launcher/sys-node.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import sysQuickjsSource from "../../launcher/sys-quickjs.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import unwrapSource from "../../launcher/unwrap.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import wireSource from "../../launcher/wire.ts" with { type: "text" };
// @ts-expect-error a text import of a .ts file
import workspaceSource from "../../launcher/workspace.ts" with { type: "text" };
import { writeContentDir, writeContentFile } from "../paths/content-file.ts";

const runtimeDirs = new Map<string, string>();

/**
 * The directory holding runtime.ts and its imports for this build of mcpx. Once per cache directory
 * and process: a run asks for it several times (the early runtime, the bundle, the wire), and each
 * time would hash all its sources again.
 */
function runtimeDir(cacheDir: string): string {
  let dir = runtimeDirs.get(cacheDir);
  // wire.ts sorts last, and writeContentDir writes it last: the set is complete when it is there
  if (dir === undefined || !existsSync(join(dir, "wire.ts"))) {
    const files = {
      "artifact.ts": artifactSource as string,
      "base64.ts": base64Source as string,
      "capture.ts": captureSource as string,
      "channel.ts": channelSource as string,
      "globals.ts": globalsSource as string,
      "handoff.ts": handoffSource as string,
      "runtime.ts": runtimeSource as string,
      "script-load.ts": scriptLoadSource as string,
      "serialize.ts": serializeSource as string,
      "sys.ts": sysSource as string,
      "sys-bun.ts": sysBunSource as string,
      "sys-deno.ts": sysDenoSource as string,
      "sys-node.ts": sysNodeSource as string,
      "sys-quickjs.ts": sysQuickjsSource as string,
      "unwrap.ts": unwrapSource as string,
      "wire.ts": wireSource as string,
      "workspace.ts": workspaceSource as string,
    };
    dir = writeContentDir(join(cacheDir, "launch"), "rt-", files);
    runtimeDirs.set(cacheDir, dir);
  }
  return dir;
}

/**
 * Who loads a runtime bundle: "any" process runtime (Bun, Deno; the one bundle they share), or the
 * embedded QuickJS, whose own has no Bun, Deno or Node system layer: QuickJS compiles every function
 * it parses, in JSC's coldest wasm tiers on a one-shot run, and those layers were a quarter of the
 * bundle's text and of its first compile (decision 0029).
 */
export type BundleFor = "any" | "quickjs";

const BUNDLE_FILES: Record<BundleFor, string> = { any: "runtime.bundle.mjs", quickjs: "runtime.quickjs.mjs" };

/** the launcher's modules a QuickJS run never loads: bundled for it as stubs whose exports throw */
const OTHER_SYSTEMS = /\/sys-(bun|deno|node)\.ts$/;

/**
 * The runtime as ONE plain-JS module, bundled once per runtime version (Bun.build) and kept beside
 * its sources. Every module a script's runtime loads adds to Bun's start-up, even a tiny one
 * (decision 0011 has the figures), so the launcher imports this instead of runtime.ts and its
 * imports. Runtime-neutral still: node: imports stay dynamic and external.
 */
export async function runtimeBundle(cacheDir: string, forWhom: BundleFor = "any"): Promise<string> {
  const found = builtRuntimeBundle(cacheDir, forWhom);
  if (found.exists) return found.path;
  const dir = runtimeDir(cacheDir);
  const bundle = found.path;
  const built = await Bun.build({
    entrypoints: [join(dir, "runtime.ts")],
    target: "node",
    format: "esm",
    external: ["bun:ffi"],
    plugins: forWhom === "quickjs" ? [withoutOtherSystems()] : [],
  });
  if (!built.success || !built.outputs[0]) throw new Error(`mcpx: bundling the script runtime failed: ${built.logs.map(String).join("; ")}`);
  const tmp = `${bundle}.${process.pid}.tmp`;
  writeFileSync(tmp, await built.outputs[0].text(), { mode: 0o600 });
  renameSync(tmp, bundle);
  return bundle;
}

/** each of OTHER_SYSTEMS as a module of stubs, one per export it has, that say what was called where */
function withoutOtherSystems(): import("bun").BunPlugin {
  const scanner = new Bun.Transpiler({ loader: "ts" });
  return {
    name: "mcpx-quickjs-system-only",
    setup(build) {
      build.onLoad({ filter: OTHER_SYSTEMS }, ({ path }) => {
        const file = basename(path);
        const stub = (name: string) => `export function ${name}() { throw new Error("mcpx runtime: ${file} is not in the QuickJS sandbox's runtime"); }`;
        return { contents: scanner.scan(readFileSync(path, "utf8")).exports.map(stub).join("\n"), loader: "js" };
      });
    },
  };
}

/** where a runtime bundle is, and whether it is built yet: synchronous, for a runtime started before config is read */
export function builtRuntimeBundle(cacheDir: string, forWhom: BundleFor = "any"): { path: string; exists: boolean } {
  const path = join(runtimeDir(cacheDir), BUNDLE_FILES[forWhom]);
  return { path, exists: existsSync(path) };
}

/** the wire's decoders, from the very text the launcher's runtime is built from */
export async function loadWire(): Promise<typeof import("../../launcher/wire.ts")> {
  return evaluated(wireSource as string, "launcher/wire.ts");
}

export async function loadUnwrap(): Promise<(raw: unknown) => unknown> {
  return evaluated<{ unwrap: (raw: unknown) => unknown }>(unwrapSource as string, "launcher/unwrap.ts").unwrap;
}

let evaluator: InstanceType<typeof Bun.Transpiler> | undefined;
const modules = new Map<string, unknown>();

/**
 * An import-free module's exports, from its TypeScript text: its types stripped (Bun.Transpiler, in
 * memory) and its code run as a function body, its `export` keywords dropped and its exports returned.
 * Once per process and file.
 */
function evaluated<T>(source: string, file: string): T {
  let mod = modules.get(file) as T | undefined;
  if (mod !== undefined) return mod;
  evaluator ??= new Bun.Transpiler({ loader: "ts", minifyWhitespace: true });
  const { exports, imports } = evaluator.scan(source);
  if (imports.length > 0) throw new Error(`internal: ${file} imports ${imports.map((i) => i.path).join(", ")}; the host evaluates it only import-free`);
  const declaration = /(^|[;}\n])export (?=(?:async )?(?:function|const|let|class)\b)/g;
  const js = evaluator.transformSync(source).replace(declaration, "$1");
  if (/(^|[;}\n])export\b/.test(js)) throw new Error(`internal: ${file} has an export the host cannot evaluate: export declarations only`);
  mod = new Function(`"use strict";${js};return{${exports.join(",")}};`)() as T;
  modules.set(file, mod);
  return mod;
}

/** the entry a runtime started before its run runs: the runtime bundle (which waits for the handoff), then the run's launcher */
export function readyEntry(cacheDir: string, runtimeFile: string): string {
  const text =
    `// Generated by mcpx (lib/runtime/launcher-files.ts): a script runtime started before its run. Do not edit.\n` +
    `import { handedLauncher } from ${JSON.stringify(Bun.pathToFileURL(runtimeFile).href)};\n` +
    `await import(handedLauncher());\n`;
  return writeContentFile(join(cacheDir, "launch"), "ready-", ".mjs", text);
}

/** the generated launcher for a run's phases and script */
export function writeLauncher(at: { cacheDir: string; runtimeFile: string; scriptPath: string }, phases: Record<ScriptPhase, PhaseLine[]>): string {
  const text = fillTemplate({
    runtime: JSON.stringify(Bun.pathToFileURL(at.runtimeFile).href),
    import: JSON.stringify(Bun.pathToFileURL(at.scriptPath).href),
    before: phaseBlock("before", phases.before),
    prefix: phaseBlock("prefix", phases.prefix),
    onSuccess: phaseBlock("onSuccess", phases.onSuccess),
    onError: phaseBlock("onError", phases.onError),
    suffix: phaseBlock("suffix", phases.suffix),
  });
  return writeContentFile(join(at.cacheDir, "launch"), "launcher-", ".ts", text);
}

let nodeTranspiler: InstanceType<typeof Bun.Transpiler> | undefined;

/** TypeScript to JavaScript for Node; relative .ts imports among the runtime's own files become .mjs */
function nodeJs(text: string): string {
  nodeTranspiler ??= new Bun.Transpiler({ loader: "ts", target: "node" });
  return nodeTranspiler.transformSync(text).replace(/(from\s*["']\.\/[\w-]+)\.ts(["'])/g, "$1.mjs$2");
}

const nodeRuntimes = new Map<string, string>();

/**
 * The runtime's sources (runtime.ts and its imports, beside the bundle) transpiled for Node: its
 * runtime.mjs, which every Node launcher imports. Once per process: a CLI run asks twice (its
 * runtime started early, then the run's own shape).
 */
export function nodeRuntime(cacheDir: string, runtimeFile: string): string {
  const key = `${cacheDir}\0${runtimeFile}`;
  const known = nodeRuntimes.get(key);
  if (known !== undefined && existsSync(known)) return known;
  const runtimeSrc = dirname(runtimeFile);
  const files: Record<string, string> = {};
  for (const name of readdirSync(runtimeSrc))
    if (name.endsWith(".ts")) files[name.replace(/\.ts$/, ".mjs")] = nodeJs(readFileSync(join(runtimeSrc, name), "utf8"));
  const runtime = join(writeContentDir(join(cacheDir, "launch-node"), "rt-", files), "runtime.mjs");
  nodeRuntimes.set(key, runtime);
  return runtime;
}

/**
 * The run's launcher for Node. Node 20 cannot run TypeScript, so the launcher and a .ts entry script
 * are transpiled (by the embedded Bun) into .mjs siblings in the cache, the launcher importing the
 * runtime transpiled for Node (nodeRuntime). Only the entry file is transpiled: a .ts script that
 * imports other .ts files needs Bun or Deno (docs/runtimes.md).
 */
export function nodeLauncher(launcher: string, runtimeFile: string, cacheDir: string, scriptPath: string): string {
  const dir = join(cacheDir, "launch-node");
  const script = /\.(m|c)?tsx?$/.test(scriptPath) ? writeContentFile(dir, "script-", ".mjs", scriptAsJs(nodeJs, readFileSync(scriptPath, "utf8"))) : scriptPath;
  const runtime = nodeRuntime(cacheDir, runtimeFile);
  // the launcher names both as writeLauncher wrote them: file URLs, JSON string literals
  const text = nodeJs(readFileSync(launcher, "utf8"))
    .replace(JSON.stringify(Bun.pathToFileURL(runtimeFile).href), JSON.stringify(Bun.pathToFileURL(runtime).href))
    .replace(JSON.stringify(Bun.pathToFileURL(scriptPath).href), JSON.stringify(Bun.pathToFileURL(script).href));
  return writeContentFile(dir, "launcher-", ".mjs", text);
}

/**
 * The script for Node (and the QuickJS sandbox), transpiled. One that does not parse becomes a module that throws what the
 * transpiler said, with its position, so the run fails the way it does on Bun and Deno: as the
 * script's own error (onError and suffix run, exit 1), reported as "snippet line L:C" or "FILE:L:C".
 */
export function scriptAsJs(js: (text: string) => string, text: string): string {
  try {
    return js(text);
  } catch (err) {
    type Built = { message?: string; position?: { line?: number; column?: number } };
    // several errors come as an AggregateError of them: the first is where the parse stopped
    const e = ((err as { errors?: Built[] }).errors?.[0] ?? err) as Built;
    const position = e.position ? { line: e.position.line, column: e.position.column } : undefined;
    return (
      `throw Object.assign(new Error(${JSON.stringify(e.message ?? String(err))}), { name: ` +
      `"BuildMessage", position: ${JSON.stringify(position ?? null)} });\n`
    );
  }
}
