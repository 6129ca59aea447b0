// Running one hook process: argv only (never a shell string), in its own process group, with the
// payload written to stdin and stdin closed, stdout capped, and the timeout enforced by ending the
// whole group. A hook that never reads stdin, sleeps forever or floods stdout cannot hang a run.

import { endGroup } from "../../process/group.ts";

/** stdout beyond this is a hook failure; a dial object is never this large */
export const HOOK_STDOUT_CAP = 1024 * 1024;
/** stderr kept for the failure message and Claude Code's exit-2 reason */
const STDERR_KEEP = 64 * 1024;

export interface ProcessOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** set when the hook did not produce a usable outcome: timeout, missing executable, output cap */
  failure?: string;
}

export async function runHookProcess(argv: string[], stdin: string, env: Record<string, string | undefined>, timeoutMs: number, cwd: string): Promise<ProcessOutcome> {
  let child: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  try {
    child = Bun.spawn({ cmd: argv, cwd, env: env as Record<string, string>, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  } catch (err) {
    return { exitCode: null, stdout: "", stderr: "", failure: `cannot start ${argv[0]}: ${(err as Error).message}` };
  }
  // written without waiting: a hook that never reads stdin must not block us; it is closed after
  void (async () => {
    try {
      child.stdin.write(stdin);
      await child.stdin.end();
    } catch {
      // the hook exited without reading: that is its business
    }
  })();

  let failure: string | undefined;
  const timer = setTimeout(() => {
    failure = `timed out after ${timeoutMs}ms`;
    void endGroup(child.pid);
  }, timeoutMs);
  const [stdout, stderr] = await Promise.all([
    collect(child.stdout, HOOK_STDOUT_CAP, () => {
      failure ??= `wrote more than ${HOOK_STDOUT_CAP} bytes to stdout`;
      void endGroup(child.pid);
    }),
    collect(child.stderr, STDERR_KEEP),
  ]);
  const exitCode = await child.exited;
  clearTimeout(timer);
  await endGroup(child.pid); // anything the hook left running in its group goes too
  return { exitCode: failure ? null : exitCode, stdout, stderr, failure };
}

async function collect(stream: ReadableStream<Uint8Array>, cap: number, onOverflow?: () => void): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    if (text.length < cap) text += decoder.decode(chunk, { stream: true });
    if (text.length >= cap && onOverflow) {
      onOverflow();
      onOverflow = undefined;
    }
  }
  return text.slice(0, cap);
}
