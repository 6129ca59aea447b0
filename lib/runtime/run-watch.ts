// One run, from its runtime's start to its end: it writes the run's stdin, turns what the runtime
// writes on fd 1 into frames and calls (stdout-splitter.ts, stdout-bytes.ts), ends the whole process
// group on timeout or cancel, and says how the run ended.

import { rmSync } from "node:fs";
import { exitCodeOf } from "../errors/codes.ts";
import { frameError } from "../errors/frame-error.ts";
import { KILL_GRACE_MS } from "../process/group.ts";
import { readSocket } from "../process/fd-pairs.ts";
import type { Lineage } from "../process/lineage.ts";
import { trace } from "../util/trace.ts";
import type { Channel } from "./channel.ts";
import type { SpawnedRuntime } from "./ready-runtime.ts";
import type { RunHandlers, RunOutcome, RunSpec, SerializedError } from "./run-spec.ts";
import { launcherOutput, type Wire } from "./launcher-output.ts";
import { latin1Text } from "./stdout-bytes.ts";

export type { Wire };

/** a run's runtime, started, with the lineage it is ended by and the channel its calls come over */
export interface Spawned extends SpawnedRuntime {
  lineage: Lineage;
  channel: Channel;
  /** a sandboxed Deno's handoff file, removed when the run ends if it never read it */
  handoffPath?: string;
}

/**
 * The run's stdin, written and closed. A runtime that ended without reading it (a fast script that
 * never asks, its runtime already handed the run) makes the write fail with EPIPE, synchronously or
 * later: that is the script's choice, as with `| head`, and its exit still decides the run. Under load
 * this race failed one module hook in about a dozen runs of its suite.
 */
export function writeRunStdin(sink: Pick<import("bun").FileSink, "write" | "end">, text: string): void {
  const unread = (err: unknown) => {
    if ((err as { code?: string }).code !== "EPIPE") throw err;
  };
  // each on its own: a write refused still closes the pipe
  const attempt = (op: () => unknown) => {
    try {
      const r = op();
      if (r instanceof Promise) r.catch(unread);
    } catch (err) {
      unread(err);
    }
  };
  attempt(() => sink.write(text));
  attempt(() => sink.end());
}

/** the run, from its runtime's start to its end: stdin, frames, calls, timeout and cancel, the outcome */
export async function watchRun(
  spec: RunSpec,
  h: RunHandlers,
  wire: Wire,
  nonce: string,
  { child, stdout: stdoutFd, lineage, channel, handoffPath }: Spawned,
): Promise<RunOutcome> {
  if (spec.stdin !== "inherit") writeRunStdin(child.stdin as import("bun").FileSink, spec.stdin);

  const output = launcherOutput(h, wire, nonce, channel);
  const onStdout = output.push;
  const read =
    stdoutFd === undefined
      ? pump(child.stdout as ReadableStream<Uint8Array>, onStdout, "latin1")
      : readSocket(
          stdoutFd,
          (bytes) => {
            if (bytes.length > 0) onStdout(latin1Text(bytes));
            return true;
          },
          // a read error ends the script's output, as the end of the stream does; its exit still decides the run
          () => {},
        ).then((r) => r.ended);
  const stdoutDone = read.then(output.end);
  const oom = new OomWatch();
  const stderrDone = pump(child.stderr as ReadableStream<Uint8Array>, (s) => {
    oom.push(s);
    h.frame({ type: "stderr", data: s });
  });

  let stopped: "timeout" | "interrupted" | undefined;
  const stop = (why: "timeout" | "interrupted") => {
    if (stopped) return;
    stopped = why;
    void lineage.end();
  };
  const timer = spec.timeoutMs > 0 ? setTimeout(() => stop("timeout"), spec.timeoutMs) : undefined;
  const onAbort = () => stop("interrupted");
  spec.signal?.addEventListener("abort", onAbort);
  if (spec.signal?.aborted) onAbort();

  const code = await child.exited;
  trace("child exited");
  clearTimeout(timer);
  spec.signal?.removeEventListener("abort", onAbort);
  // whatever the script left behind goes with it, in its group or not: no orphans
  await lineage.end();
  await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(KILL_GRACE_MS + 500)]);
  channel.close();
  if (handoffPath) rmSync(handoffPath, { force: true }); // a sandboxed Deno's handoff file, if it never read it

  if (stopped) return stoppedOutcome(spec, stopped);
  const marker = output.marker();
  if (spec.heap && marker?.ok !== true && (oom.seen || isOutOfMemory(marker?.error))) {
    const signal = child.signalCode;
    return heapOutcome(spec.heap, signal ? exitCodeOf("EXIT", 128 + (signalNumber(String(signal)) ?? 0)) : code === 0 ? 1 : code);
  }
  if (marker?.ok) return { ok: true, value: marker.value, exitCode: code === 0 ? 0 : code };
  if (marker) return { ok: false, error: marker.error, exitCode: code === 0 ? 1 : code };
  if (code === 0) return { ok: true, value: undefined, exitCode: 0 };
  const signal = child.signalCode;
  return {
    ok: false,
    exitCode: exitCodeOf("EXIT", signal ? 128 + (signalNumber(String(signal)) ?? 0) : code),
    error: frameError("EXIT", signal ? `the script was killed by ${signal}` : `the script exited with code ${code}`),
  };
}

/** a run ended by its timeout or by a cancel: its whole process group, or its QuickJS engine, is gone */
export function stoppedOutcome(spec: RunSpec, why: "timeout" | "interrupted"): RunOutcome {
  if (why === "timeout") {
    return {
      ok: false,
      exitCode: exitCodeOf("TIMEOUT"),
      error: frameError(
        "TIMEOUT",
        `the script ran past its timeout of ${spec.timeoutMs}ms (${spec.timeoutFrom ?? "exec.timeout / --timeout"}) and its process group was ended`,
      ),
    };
  }
  return {
    ok: false,
    exitCode: exitCodeOf("INTERRUPTED"),
    error: frameError("INTERRUPTED", "the run was interrupted and its process group was ended"),
  };
}

/** a run that ran out of memory at its heap limit (RunSpec.heap set) */
export function heapOutcome(heap: NonNullable<RunSpec["heap"]>, exitCode: number): RunOutcome {
  return {
    ok: false,
    exitCode,
    error: frameError(
      "HEAP_LIMIT",
      `the script ran out of memory at its heap limit of ${heap.mb} MiB (${heap.from}) and was ended: ` +
        `keep less in memory at once, or raise ${heap.from} where the run is served`,
    ),
  };
}

/** JavaScriptCore's allocation failure under the data limit, as the launcher serialized it (Bun) */
function isOutOfMemory(e: SerializedError | undefined): boolean {
  return e !== undefined && e.name === "RangeError" && /out of memory|allocation failed/i.test(e.message);
}

/** whether V8 said on stderr that it ended the process out of memory (Deno, Node), a phrase that may span chunks */
class OomWatch {
  seen = false;
  private tail = "";
  push(s: string): void {
    if (this.seen) return;
    const text = this.tail + s;
    this.seen = /JavaScript (heap )?out of memory|Fatal process out of memory/.test(text);
    this.tail = text.slice(-32);
  }
}

async function pump(stream: ReadableStream<Uint8Array>, onText: (s: string) => void, encoding: "utf-8" | "latin1" = "utf-8"): Promise<void> {
  if (encoding === "latin1") {
    for await (const chunk of stream) if (chunk.length) onText(latin1Text(chunk));
    return;
  }
  const decoder = new TextDecoder(encoding);
  for await (const chunk of stream) {
    const s = decoder.decode(chunk, { stream: true });
    if (s) onText(s);
  }
  const rest = decoder.decode();
  if (rest) onText(rest);
}

function signalNumber(name: string): number | undefined {
  const { constants } = require("node:os") as typeof import("node:os");
  return (constants.signals as Record<string, number>)[name];
}
