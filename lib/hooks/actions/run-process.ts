// Running one hook process: argv only (never a shell string), in its own process group, with the
// payload written to stdin and stdin closed, stdout capped, and the timeout enforced by ending the
// hook and everything it started (its lineage: its group, and what left it). A hook that never reads
// stdin, sleeps forever, floods stdout, or leaves a grandchild holding stdout open cannot hang a run.

import { Lineage } from "../../process/lineage.ts";

/** stdout beyond this is a hook failure; a dial object is never this large */
const HOOK_STDOUT_CAP = 1024 * 1024;
/** stderr kept for the failure message and Claude Code's exit-2 reason */
const STDERR_KEEP = 64 * 1024;
/**
 * After a hook exits, how long its stdout and stderr may still deliver what it wrote before they are
 * cut: what a hook wrote before exiting is already in the pipe, so this only has to cover the
 * reader catching up; a grandchild that keeps the pipe open is not waited for. Change with care:
 * every hook that leaves something behind costs the run this long.
 */
const HOOK_DRAIN_MS = 200;

export interface ProcessOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** set when the hook did not produce a usable outcome: timeout, missing executable, output cap */
  failure?: string;
}

/** @param signal ends the hook early (its lineage, as at the timeout): the command it belongs to is ending */
export async function runHookProcess(
  argv: string[],
  stdin: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
  cwd: string,
  signal?: AbortSignal,
): Promise<ProcessOutcome> {
  const lineage = new Lineage(`hook-${crypto.randomUUID()}`);
  let child: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  try {
    child = Bun.spawn({
      cmd: argv,
      cwd,
      env: { ...env, ...lineage.env() } as Record<string, string>,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (err) {
    return { exitCode: null, stdout: "", stderr: "", failure: `cannot start ${argv[0]}: ${(err as Error).message}` };
  }
  lineage.track(child.pid);
  // written without waiting: a hook that never reads stdin must not block us; it is closed after
  void (async () => {
    try {
      child.stdin.write(stdin);
      await child.stdin.end();
    } catch {
      // the hook exited without reading: that is its business
    }
  })();

  // reading stops at the timeout, or a short drain after the hook's own exit: never only at EOF
  let cutReading!: () => void;
  const cut = new Promise<void>((resolve) => (cutReading = resolve));
  let failure: string | undefined;
  const stop = (why: string) => {
    failure ??= why;
    cutReading();
    void lineage.end();
  };
  const timer = setTimeout(() => stop(`timed out after ${timeoutMs}ms`), timeoutMs);
  const onAbort = () => stop(String(signal?.reason ?? "ended"));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let drain: ReturnType<typeof setTimeout> | undefined;
  void child.exited.then(() => (drain = setTimeout(cutReading, HOOK_DRAIN_MS)));
  const [stdout, stderr] = await Promise.all([
    collect(child.stdout, cut, HOOK_STDOUT_CAP, () => {
      failure ??= `wrote more than ${HOOK_STDOUT_CAP} bytes to stdout`;
      void lineage.end();
    }),
    collect(child.stderr, cut, STDERR_KEEP),
  ]);
  const exitCode = await child.exited; // bounded: the timeout ends the lineage
  clearTimeout(timer);
  signal?.removeEventListener("abort", onAbort);
  clearTimeout(drain);
  await lineage.end(); // anything the hook left running, in its group or not, goes too
  return { exitCode: failure ? null : exitCode, stdout, stderr, failure };
}

/** the stream's text up to `cap`, until it ends or `cut` settles (then the stream is cancelled) */
async function collect(stream: ReadableStream<Uint8Array>, cut: Promise<void>, cap: number, onOverflow?: () => void): Promise<string> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const stop = cut.then(() => undefined);
  let text = "";
  for (;;) {
    const r = await Promise.race([reader.read(), stop]);
    if (!r || r.done) break;
    if (text.length < cap) text += decoder.decode(r.value, { stream: true });
    if (text.length >= cap && onOverflow) {
      onOverflow();
      onOverflow = undefined;
    }
  }
  void reader.cancel().catch(() => {});
  return text.slice(0, cap);
}
