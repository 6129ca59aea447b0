// What a command loads before it can do anything is its start-up: every module on the static import
// graph is read, linked and evaluated, and a few of Node's built-in modules cost more than the rest
// of mcpx's own code (measured on the binary as bare Bun: an empty script 5 ms of CPU, one importing
// node:crypto 16 ms). These rules keep such modules off the paths that have no use for them. The graph
// is read from the sources: static imports only (a type-only import is erased, a dynamic one loads
// only when it runs).

import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** the specifiers a file imports statically: `import x from`, `import { a } from`, `export … from`, `import "x"`; not `import type` */
function staticImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s)?[^;]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gm)) {
    if (m[2]) continue;
    out.push(m[3] ?? m[4]!);
  }
  return out;
}

/** every module the static graph from `entry` reaches: repository files (relative to the root) and node: built-ins */
function reached(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [resolve(ROOT, entry)];
  while (todo.length) {
    const file = todo.pop()!;
    const key = relative(ROOT, file);
    if (seen.has(key)) continue;
    seen.add(key);
    for (const spec of staticImports(file)) {
      if (spec.startsWith("node:")) seen.add(spec);
      else if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (existsSync(target) && target.endsWith(".ts")) todo.push(target);
      }
    }
  }
  return seen;
}

test("no module of lib/, cmd/ or launcher/ imports node:crypto: Web Crypto and Bun.CryptoHasher do its jobs without its start-up", () => {
  const importers = ["lib", "cmd", "launcher"]
    .flatMap((d) => sources(join(ROOT, d)))
    .filter((f) => staticImports(f).includes("node:crypto") || readFileSync(f, "utf8").includes('import("node:crypto")'))
    .map((f) => relative(ROOT, f));
  expect(importers).toEqual([]);
});

test("a --remote run loads no engine: not the gate, the pool, the exec path, nor Node's child_process or async_hooks", () => {
  const graph = reached("cmd/script-remote.ts");
  // the walker itself works: the remote path does reach what it uses
  expect(graph.has("lib/daemon/client.ts")).toBe(true);
  expect(graph.has("lib/render/frames-to-cli.ts")).toBe(true);
  const engine = ["lib/session/engine.ts", "lib/exec/execute.ts", "lib/hooks/build-gate.ts", "lib/mcp/pool.ts", "node:child_process", "node:async_hooks"];
  expect(engine.filter((m) => graph.has(m))).toEqual([]);
});

test("run and exec decide local or remote before either's code loads: the command itself reaches neither, nor the early runtime's", () => {
  const graph = reached("cmd/script-command.ts");
  expect(graph.has("cmd/own-flags.ts")).toBe(true);
  const either = ["cmd/script-local.ts", "cmd/script-remote.ts", "lib/session/engine.ts", "lib/exec/execute.ts", "lib/daemon/client.ts"];
  // a run with --remote on its command line starts no runtime early (main.ts), so it loads none of that code
  const early = ["cmd/early-runtime.ts", "lib/runtime/runtime-sources.ts", "lib/runtime/launcher-files.ts"];
  expect([...either, ...early].filter((m) => graph.has(m))).toEqual([]);
  expect(early.filter((m) => reached("cmd/script-remote.ts").has(m))).toEqual([]);
});
