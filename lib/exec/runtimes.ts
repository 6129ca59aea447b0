// The script runtimes: the binary itself as Bun (the default, nothing else installed), Deno 2 and
// Node from PATH. The launcher is the same text on all three; Node only gets it transpiled.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeContentDir, writeContentFile } from "../paths/content-file.ts";
import { findExecutable } from "../paths/executable.ts";

export type RuntimeName = "auto" | "bun" | "deno" | "node";

export class RuntimeError extends Error {
  override name = "RuntimeError";
}

export interface RuntimeCommand {
  argv: string[];
  env: Record<string, string>;
}

export async function runtimeCommand(name: RuntimeName, launcher: string, cacheDir: string, scriptPath: string): Promise<RuntimeCommand> {
  switch (name) {
    case "auto":
    case "bun":
      // BUN_BE_BUN makes the compiled mcpx behave as the plain bun CLI; the launcher removes it
      // again so that a child the script starts, such as mcpx itself, is not bun.
      return { argv: [process.execPath, "run", launcher], env: { BUN_BE_BUN: "1" } };
    case "deno": {
      const deno = onPath("deno");
      if (!deno) throw new RuntimeError("script.runtime is deno, but deno is not on PATH: install Deno 2, or use --runtime bun (the embedded runtime)");
      return { argv: [deno, "run", "--allow-all", "--no-prompt", "--quiet", launcher], env: { DENO_NO_UPDATE_CHECK: "1" } };
    }
    case "node": {
      const node = onPath("node");
      if (!node) throw new RuntimeError("script.runtime is node, but node is not on PATH: install Node.js, or use --runtime bun (the embedded runtime)");
      return { argv: [node, nodeEntry(launcher, cacheDir, scriptPath)], env: {} };
    }
  }
}

/**
 * Node 20 cannot run TypeScript, so the launcher, its runtime and a .ts entry script are transpiled
 * (by the embedded Bun) into .mjs siblings in the cache. Only the entry file is transpiled: a .ts
 * script that imports other .ts files needs Bun or Deno (docs/runtimes.md).
 */
function nodeEntry(launcher: string, cacheDir: string, scriptPath: string): string {
  const transpiler = new Bun.Transpiler({ loader: "ts", target: "node" });
  const dir = join(cacheDir, "launch-node");
  // relative .ts imports among the runtime's own files become .mjs
  const js = (text: string) => transpiler.transformSync(text).replace(/(from\s*["']\.\/[\w-]+)\.ts(["'])/g, "$1.mjs$2");
  const script = /\.(m|c)?tsx?$/.test(scriptPath) ? writeContentFile(dir, "script-", ".mjs", js(readFileSync(scriptPath, "utf8"))) : scriptPath;
  const runtimeUrl = /import \* as __mcpx from "(file:[^"]+)"/.exec(readFileSync(launcher, "utf8"))![1]!;
  const runtimeSrc = dirname(fileURLToPath(runtimeUrl));
  const files: Record<string, string> = {};
  for (const name of readdirSync(runtimeSrc)) if (name.endsWith(".ts")) files[name.replace(/\.ts$/, ".mjs")] = js(readFileSync(join(runtimeSrc, name), "utf8"));
  const runtime = join(writeContentDir(dir, "rt-", files), "runtime.mjs");
  const text = js(readFileSync(launcher, "utf8"))
    .replace(JSON.stringify(runtimeUrl), JSON.stringify(pathToFileURL(runtime).href))
    .replace(JSON.stringify(pathToFileURL(scriptPath).href), JSON.stringify(pathToFileURL(script).href));
  return writeContentFile(dir, "launcher-", ".mjs", text);
}

/** a runtime program on PATH, found as a shell would find it */
function onPath(cmd: string): string | undefined {
  const found = findExecutable(cmd, process.cwd(), process.env.PATH);
  return found.ok ? found.path : undefined;
}
