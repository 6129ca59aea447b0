// The script runtime of `mcpx run`/`exec`, started by main.ts before the command's own code loads,
// so that its start overlaps loading the command, reading config and opening the engine. Which one
// and in what shape is a guess from the command line (lib/runtime/guess.ts); here it is started,
// handed to the run, and ended if the run did not take it.

import { guessedShape, guessKind, noteWanted, type GuessNote } from "../lib/runtime/guess.ts";
import { settingFlag, type ParsedArgs } from "../lib/settings/flags.ts";
import { startEarly, type EarlyRuntime } from "../lib/runtime/runtime-sources.ts";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { runBeforeExit } from "../lib/util/before-exit.ts";
import { sandboxOnDeno } from "../lib/exec/sandbox-engine.ts";

let early: EarlyRuntime | undefined;
/** stops handling SIGINT/SIGTERM here, once the command handles them itself */
let handOverSignals: (() => void) | undefined;
let note: GuessNote | undefined;

/** Starts the guess for `mcpx run|exec`, from its command line as lib/settings/flags.ts parsed it (main.ts: not for --remote) */
export function startEarlyRuntime(kind: "run" | "exec", parsed: ParsedArgs): void {
  const args = {
    runtime: settingFlag(parsed, "script.runtime"),
    sandbox: settingFlag(parsed, "exec.sandbox"),
    config: parsed.own.config as string | undefined,
    env: (parsed.own.env as string[] | undefined) ?? [],
    stdinScript: kind === "exec" && parsed.positionals[0] === "-",
  };
  if (args.sandbox === "on" && !sandboxOnDeno(args.runtime, settingFlag(parsed, "exec.sandboxEngine"))) {
    // a sandboxed run on the embedded engine (as its flags say; config may still say Deno, and then the
    // compile is not used): its module compiles on JSC's threads while the command loads
    void import("../lib/runtime/quickjs-engine.ts").then((m) => m.compileQuickjs());
  }
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
