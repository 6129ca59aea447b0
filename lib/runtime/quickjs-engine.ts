// The embedded sandbox's engine: QuickJS compiled to WebAssembly (quickjs-emscripten), its .wasm
// embedded in the mcpx binary (bun build --compile embeds a `type: "file"` import). The module is
// compiled once per process and instantiated afresh for every run: a run's memory is an instance of
// its own, dropped whole when the run ends, so nothing of one run (nor a memory bomb's high-water
// mark, nor a wasm trap) outlives it in the serving process.

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule, RELEASE_SYNC } from "quickjs-emscripten";
// @ts-expect-error a file import: the path of the .wasm, in the binary's own file system when compiled
import wasmPath from "@jitl/quickjs-wasmfile-release-sync/wasm" with { type: "file" };

let compiled: Promise<WebAssembly.Module> | undefined;
let next: Promise<QuickJSWASMModule> | undefined;

function instantiate(): Promise<QuickJSWASMModule> {
  compiled ??= Bun.file(wasmPath as string)
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes));
  return compiled.then((wasmModule) => newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule })));
}

/**
 * A fresh QuickJS instance for one run. The next run's is made as this one is handed out, while this
 * run runs, so a serving process's next run does not wait for it; it has run nothing until then.
 */
export async function quickjsInstance(): Promise<QuickJSWASMModule> {
  const mine = next ?? instantiate();
  next = instantiate();
  next.catch(() => (next = undefined));
  return mine;
}
