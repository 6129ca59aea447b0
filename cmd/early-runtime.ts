// The script runtime of `mcpx run`/`exec`, started by main.ts before the command's own code loads,
// so that its start overlaps loading the command, reading config and opening the engine. Which one
// and in what shape is a guess from the command line (lib/runtime/guess.ts); here it is started,
// handed to the run, and ended if the run did not take it.

import { guessedShape, guessKind, noteWanted, type GuessNote, type RunArgs } from "../lib/runtime/guess.ts";
import { startEarly, type EarlyRuntime } from "../lib/runtime/runtime-sources.ts";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { runBeforeExit } from "../lib/util/before-exit.ts";

let early: EarlyRuntime | undefined;
/** stops handling SIGINT/SIGTERM here, once the command handles them itself */
let handOverSignals: (() => void) | undefined;
let note: GuessNote | undefined;

/** starts the guess for `mcpx run|exec ARGV…` (argv after the command name); none for --remote, whose run is the daemon's */
export async function startEarlyRuntime(kind: "run" | "exec", argv: string[]): Promise<void> {
  const head = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (head.includes("--remote")) return;
  const args: RunArgs = {
    runtime: flagValue(head, "--runtime"),
    sandbox: flagValue(head, "--sandbox"),
    config: flagValue(head, "--config"),
    env: head.flatMap((a, i) => (a === "--env" ? (head[i + 1] ?? []) : a.startsWith("--env=") ? a.slice(6) : [])),
    stdinScript: kind === "exec" && head.includes("-"),
  };
  const guessed = guessKind(args);
  note = guessed.note;
  // a Ctrl-C before the command handles signals itself (it loads, reads config) would kill mcpx by the
  // default action and leave the runtime (and the host's watcher) to init: with a handler, Bun queues
  // the signal, and if it is handled here, not by the command, the runtime is ended and reaped first
  const onSignal = () =>
    void endEarlyRuntime()
      .then(runBeforeExit)
      .finally(() => process.exit(exitCodeOf("INTERRUPTED")));
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  handOverSignals = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  const shape = guessed.guess === "none" ? undefined : guessedShape(args, guessed.guess);
  early = startEarly(() => shape);
}

/** the command handles SIGINT and SIGTERM from here on (an interrupted run ends its runtime itself) */
export function commandHandlesSignals(): void {
  handOverSignals?.();
  handOverSignals = undefined;
}

/** the value of `--flag VALUE` or `--flag=VALUE` in the raw argv, if given */
function flagValue(head: string[], flag: string): string | undefined {
  const i = head.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return head[i] === flag ? head[i + 1] : head[i]!.slice(flag.length + 1);
}

/** the guess, for the run to take if it fits (the command's finally still ends it with endEarlyRuntime) */
export function earlyRuntime(): EarlyRuntime | undefined {
  return early;
}

/**
 * Ends the guess unless a run took it: a runtime that never got a run must not outlive mcpx. Notes
 * what the run wanted, for the next run here, when that differs from what the note said.
 */
export async function endEarlyRuntime(): Promise<void> {
  await early?.close();
  noteWanted(note, early?.wanted());
}
