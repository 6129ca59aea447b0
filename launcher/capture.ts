// Output capture: installed when the runtime is imported (runtime.ts), before the `before` phase, so
// even it keeps its order. console goes to fd 1 (log, info, debug, dir) or into stderr frames (error,
// warn, trace); on Deno and Node, process.stdout and process.stderr go the same way.

import { g } from "./globals.ts";
import { frame, sys, writeOut } from "./handoff.ts";

/** routes the script's console, and on Deno and Node its process.stdout and process.stderr, into the ordered stream */
export function installCapture(): void {
  const toStdout = (...args: unknown[]) => writeOut(sys.format(args) + "\n");
  const toStderr = (...args: unknown[]) => frame({ t: "stderr", d: sys.format(args) + "\n" });
  const c = console as unknown as Record<string, (...a: unknown[]) => void>;
  c.log = c.info = c.debug = c.dir = toStdout;
  c.error = c.warn = toStderr;
  c.trace = (...args: unknown[]) => toStderr("Trace:", ...args, "\n" + (new Error().stack ?? "").split("\n").slice(2).join("\n"));
  if (!g.Bun) {
    interceptStream("stdout", writeOut);
    // made at the first bytes written: the QuickJS sandbox has no TextDecoder, and writes text
    let stderrText: TextDecoder | undefined;
    const decode = (d: Uint8Array) => {
      stderrText ??= new TextDecoder();
      return stderrText.decode(d, { stream: true });
    };
    interceptStream("stderr", (d) => frame({ t: "stderr", d: typeof d === "string" ? d : decode(d) }));
  }
}

/**
 * process.stdout/stderr writes go through the same ordered channel on Deno and Node. Not on Bun:
 * there, redefining or even reading process.stdout materialises the stream, a start-up cost per
 * stream, so Bun's own process.stdout keeps writing to fd 1 directly (still
 * in order: both it and our writer write through at once, sys-bun.ts syncBunStdio), and process.stderr to fd 2, whose order
 * relative to fd 1 is best effort, like a child process's stderr (docs/frames.md).
 */
function interceptStream(name: "stdout" | "stderr", send: (chunk: string | Uint8Array) => void): void {
  const desc = Object.getOwnPropertyDescriptor(g.process, name);
  let stream: { write: unknown } | undefined;
  Object.defineProperty(g.process, name, {
    configurable: true,
    enumerable: true,
    get() {
      if (!stream) {
        stream = (desc?.get ? desc.get.call(g.process) : desc?.value) as { write: unknown };
        patchWrite(stream, send);
      }
      return stream;
    },
  });
}

function patchWrite(stream: { write: unknown }, send: (chunk: string | Uint8Array) => void): void {
  stream.write = (chunk: unknown, encodingOrCb?: unknown, cb?: unknown) => {
    // bytes stay bytes: a script's stdout is not always text (the host keeps them exact)
    send(typeof chunk === "string" ? chunk : (chunk as Uint8Array));
    const done = typeof encodingOrCb === "function" ? encodingOrCb : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
}
