// The embedded sandbox's engine: QuickJS compiled to WebAssembly (quickjs-emscripten), its .wasm
// embedded in the mcpx binary (bun build --compile embeds a `type: "file"` import). The module is
// compiled once per process and instantiated afresh for every run: a run's memory is an instance of
// its own, dropped whole when the run ends, so nothing of one run (nor a memory bomb's high-water
// mark, nor a wasm trap) outlives it in the serving process.
//
// Compiling the module is most of a cold sandboxed run's start, and JSC does it on its own compiler
// threads: the CLI starts it (compileQuickjs) before the command's code loads, when --sandbox on says a
// sandboxed run is coming, so it overlaps loading the command and reading config. Only a process that
// serves run after run (serve, the daemon) makes the next instance while a run runs; the CLI runs one,
// and an instance it would never use would take a core from the run it is running.

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
// @ts-expect-error a file import: the path of the .wasm, in the binary's own file system when compiled
import wasmPath from "@jitl/quickjs-wasmfile-release-sync/wasm" with { type: "file" };

let compiled: Promise<WebAssembly.Module> | undefined;
let next: Promise<QuickJSWASMModule> | undefined;

/** starts compiling the engine's module now, for a run about to want it; a compile that fails is the run's to report */
export function compileQuickjs(): Promise<WebAssembly.Module> {
  if (!compiled) {
    compiled = Bun.file(wasmPath as string)
      .arrayBuffer()
      .then((bytes) => WebAssembly.compile(bytes));
    // started early, it may fail before any run awaits it: the run that does reports it
    compiled.catch(() => {});
  }
  return compiled;
}

function instantiate(): Promise<QuickJSWASMModule> {
  return compileQuickjs().then((wasmModule) => newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule })));
}

/**
 * A fresh QuickJS instance for one run. With `more` (a serving process), the next run's is made as this
 * one is handed out, while this run runs, so that run does not wait for it; it has run nothing until then.
 */
export async function quickjsInstance(more: boolean): Promise<QuickJSWASMModule> {
  const mine = next ?? instantiate();
  next = undefined;
  if (more) {
    next = instantiate();
    next.catch(() => (next = undefined));
  }
  return mine;
}
