// The script runtimes: the binary itself as Bun (the default, nothing else installed), Deno 2 and
// Node from PATH (or a project's node_modules/.bin, see findRuntime). The launcher is the same text
// on all three; Node only gets it transpiled.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { McpxError } from "../errors/mcpx-error.ts";
import { writeContentDir, writeContentFile } from "../paths/content-file.ts";
import { ancestors } from "../paths/ancestors.ts";
import { findExecutable } from "../paths/executable.ts";
import { denoSandboxArgs, type SandboxRun } from "./sandbox-args.ts";
import type { RuntimeName } from "../settings/choices.ts";
import type { RuntimeCommand } from "./bun-command.ts";
import { readyEntry, shapeOf, type RuntimeShape, type ShapeOptions } from "./ready-runtime.ts";
import { canPipe } from "../process/fd-pairs.ts";

export type { RuntimeName };

/** the script's runtime is not installed: exit 2 (lib/errors/codes.ts RUNTIME) */
export class RuntimeError extends McpxError {
  override name = "RuntimeError";
  constructor(message: string) {
    super(message, "RUNTIME");
  }
}

export interface RuntimeOptions {
  /** exec.autoInstall: let the runtime download packages a script imports */
  autoInstall: boolean;
  /** set when the run is sandboxed (lib/exec/sandbox.ts): the run goes to Deno with these grants only */
  sandbox?: Omit<SandboxRun, "autoInstall">;
  /** the run's heap limit in MiB (0: none) */
  heapMb: number;
}

/** V8's own heap limit (Deno's and Node's), where a run has one: the old space, where a memory bomb's objects live */
function v8HeapFlag(heapMb: number | undefined): string[] {
  return heapMb ? [`--max-old-space-size=${heapMb}`] : [];
}

/**
 * The command of a runtime started with its run (runner.ts): a sandboxed run's Deno, or an
 * unsandboxed Deno where no pipe can be made for its handoff. Every other run's runtime is started
 * before its run (ready-runtime.ts bunShape, and denoShape and nodeShape here).
 */
export function runtimeCommand(name: RuntimeName, launcher: string, how: RuntimeOptions): RuntimeCommand {
  if (how.sandbox) return sandboxedCommand(name, launcher, { ...how.sandbox, autoInstall: how.autoInstall }, how.heapMb);
  if (name !== "deno") throw new Error(`mcpx: an unsandboxed ${name} run is started before its run (ready-runtime.ts), never here`);
  return denoCommand(launcher, how.autoInstall, how.heapMb);
}

/** Deno passes V8's flags on in one flag of its own */
function denoV8Flags(heapMb: number | undefined): string[] {
  return v8HeapFlag(heapMb).map((f) => `--v8-flags=${f}`);
}

/** unsandboxed Deno running entry */
function denoCommand(entry: string, autoInstall: boolean, heapMb: number | undefined): RuntimeCommand {
  const deno = findRuntime("deno");
  if (!deno)
    throw new RuntimeError(
      `script.runtime is deno, but deno is not on PATH nor in a node_modules/.bin ` +
        `above ${process.cwd()} or the mcpx binary: install Deno 2 (npm i -D deno works), or use ` +
        `--runtime bun (the embedded runtime)`,
    );
  // --cached-only: npm: and remote imports come from Deno's cache or fail, never from a download
  return {
    argv: [deno, "run", "--allow-all", "--no-prompt", "--quiet", ...(autoInstall ? [] : ["--cached-only"]), ...denoV8Flags(heapMb), entry],
    env: { DENO_NO_UPDATE_CHECK: "1" },
  };
}

/**
 * The unsandboxed Deno runtime's shape for a run in cwd with this environment, started before its run
 * (ready-runtime.ts); undefined where no pipe can be made for its handoff (then it starts with its run).
 */
export function denoShape(runtimeFile: string, how: ShapeOptions & { autoInstall: boolean }): RuntimeShape | undefined {
  if (!canPipe()) return undefined;
  return shapeOf("deno", denoCommand(readyEntry(how.cacheDir, runtimeFile), how.autoInstall, how.heapMb), how);
}

/**
 * A sandboxed run: Deno, always, with only the grants denoSandboxArgs derives. Never a fallback to an
 * unsandboxed runtime: no Deno (or a runtime that is not Deno) is an error saying how to get one or
 * how to opt out.
 */
function sandboxedCommand(name: RuntimeName, launcher: string, run: SandboxRun, heapMb: number): RuntimeCommand {
  if (name === "bun" || name === "node") {
    throw new RuntimeError(
      `script.runtime is ${name}, but exec.sandbox is on, and the sandbox is Deno: use ` +
        `--runtime deno (or auto), or run unsandboxed with --sandbox off (MCPX_EXEC_SANDBOX=off) where that is allowed`,
    );
  }
  const deno = findRuntime("deno");
  if (!deno) {
    throw new RuntimeError(
      `exec.sandbox is on, and the sandbox runs scripts on Deno, which is not on PATH nor in a ` +
        `node_modules/.bin above ${process.cwd()} or the mcpx binary: install Deno 2 (npm i -D ` +
        `deno), or opt out of the sandbox with --sandbox off (MCPX_EXEC_SANDBOX=off, or "exec": ` +
        `{"sandbox": "off"} in .mcpx.json). The run was not started: it never falls back to running unsandboxed`,
    );
  }
  return {
    argv: [deno, "run", ...denoSandboxArgs(run), "--quiet", ...(run.autoInstall ? [] : ["--cached-only"]), ...denoV8Flags(heapMb), launcher],
    env: { DENO_NO_UPDATE_CHECK: "1" },
  };
}

/** Node running entry */
function nodeCommand(entry: string, heapMb: number | undefined): RuntimeCommand {
  const node = findRuntime("node");
  if (!node)
    throw new RuntimeError(
      `script.runtime is node, but node is not on PATH nor in a node_modules/.bin ` +
        `above ${process.cwd()} or the mcpx binary: install Node.js, or use --runtime bun (the embedded runtime)`,
    );
  return { argv: [node, ...v8HeapFlag(heapMb), entry], env: {} };
}

/**
 * The Node runtime's shape for a run in cwd with this environment, started before its run
 * (ready-runtime.ts): its entry imports the runtime transpiled for Node, which every Node launcher imports.
 */
export function nodeShape(runtimeFile: string, how: ShapeOptions): RuntimeShape {
  return shapeOf("node", nodeCommand(readyEntry(how.cacheDir, nodeRuntime(how.cacheDir, runtimeFile)), how.heapMb), how);
}

let transpiler: InstanceType<typeof Bun.Transpiler> | undefined;

/** TypeScript to JavaScript for Node; relative .ts imports among the runtime's own files become .mjs */
function nodeJs(text: string): string {
  transpiler ??= new Bun.Transpiler({ loader: "ts", target: "node" });
  return transpiler.transformSync(text).replace(/(from\s*["']\.\/[\w-]+)\.ts(["'])/g, "$1.mjs$2");
}

const nodeRuntimes = new Map<string, string>();

/**
 * The runtime's sources (runtime.ts and its imports, beside the bundle) transpiled for Node: its
 * runtime.mjs, which every Node launcher imports. Once per process: a CLI run asks twice (its
 * runtime started early, then the run's own shape).
 */
function nodeRuntime(cacheDir: string, runtimeFile: string): string {
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
  // the launcher names both as runner.ts writeLauncher wrote them: file URLs, JSON string literals
  const text = nodeJs(readFileSync(launcher, "utf8"))
    .replace(JSON.stringify(Bun.pathToFileURL(runtimeFile).href), JSON.stringify(Bun.pathToFileURL(runtime).href))
    .replace(JSON.stringify(Bun.pathToFileURL(scriptPath).href), JSON.stringify(Bun.pathToFileURL(script).href));
  return writeContentFile(dir, "launcher-", ".mjs", text);
}

/**
 * The script for Node, transpiled. One that does not parse becomes a module that throws what the
 * transpiler said, with its position, so the run fails the way it does on Bun and Deno: as the
 * script's own error (onError and suffix run, exit 1), reported as "snippet line L:C" or "FILE:L:C".
 */
function scriptAsJs(js: (text: string) => string, text: string): string {
  try {
    return js(text);
  } catch (err) {
    const e = err as { message?: string; position?: { line?: number; column?: number } };
    const position = e.position ? { line: e.position.line, column: e.position.column } : undefined;
    return (
      `throw Object.assign(new Error(${JSON.stringify(e.message ?? String(err))}), { name: ` +
      `"BuildMessage", position: ${JSON.stringify(position ?? null)} });\n`
    );
  }
}

/**
 * A runtime program: on PATH first, found as a shell would find it; then in node_modules/.bin walking
 * up from the working directory, then from the mcpx binary's directory. The fallbacks are for the
 * npm way of installing Deno (`npm i -D deno`), which puts it in node_modules/.bin and not on PATH,
 * as it is for this repository's own dist/mcpx.
 */
export function findRuntime(cmd: string): string | undefined {
  const found = findExecutable(cmd, process.cwd(), process.env.PATH);
  if (found.ok) return found.path;
  const bins = [...ancestors(process.cwd()), ...ancestors(dirname(process.execPath))].map((d) => join(d, "node_modules", ".bin"));
  const local = findExecutable(cmd, process.cwd(), bins.join(":"));
  return local.ok ? local.path : undefined;
}
