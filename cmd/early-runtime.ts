// The script runtime of `mcpx run`/`exec`, started by main.ts before the command's own code loads,
// so that its start overlaps loading the command, reading config and opening the engine. It is a
// guess from the raw argv at the shape the run will have (unsandboxed, here, this environment): the
// run takes it only if its real shape is exactly that, else ends it and starts its own
// (lib/exec/runtime-sources.ts), so a wrong guess costs a start, never a difference.
// Which runtime: the one --runtime names; without it, the kind the last run here wanted (a note kept
// by the directory, --config and the environment config and settings are found by), else Bun, the
// default. A sandboxed run (--sandbox, or a note saying so) cannot be started before it: none is.

import { bunShape, type ReadyKind, type RuntimeShape, type ShapeOptions } from "../lib/runtime/ready-runtime.ts";
import { notePath, readNote, writeNote } from "../lib/paths/note-file.ts";
import { builtRuntimeBundle } from "../lib/runtime/launcher-files.ts";
import { startEarly, type EarlyRuntime } from "../lib/runtime/runtime-sources.ts";
import { scriptEnv } from "../lib/runtime/script-env.ts";
import { cacheDir } from "../lib/paths/dirs.ts";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { runBeforeExit } from "../lib/util/before-exit.ts";

let early: EarlyRuntime | undefined;
/** stops handling SIGINT/SIGTERM here, once the command handles them itself */
let handOverSignals: (() => void) | undefined;

/** what a run may want: a runtime of a kind started before it, or none ("none": it is started with its run) */
type Guess = ReadyKind | "none";

/** the note of what the last run without --runtime and --sandbox wanted here, and what it said when read */
let note: { path: string; said: Guess | undefined } | undefined;

/** starts the guess for `mcpx run|exec ARGV…` (argv after the command name); none for --remote, whose run is the daemon's */
export async function startEarlyRuntime(kind: "run" | "exec", argv: string[]): Promise<void> {
  const head = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (head.includes("--remote")) return;
  const guess = guessed(head);
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
  const shape = guess === "none" ? undefined : await shapeFromArgv(kind, head, guess);
  early = startEarly(() => shape);
}

/** the kind --runtime and --sandbox name, or else the note's, or else Bun */
function guessed(head: string[]): Guess {
  const runtime = flagValue(head, "--runtime");
  const sandbox = flagValue(head, "--sandbox");
  if (sandbox !== undefined && sandbox !== "off") return "none";
  if (runtime === "deno" || runtime === "node") return runtime;
  if (runtime !== undefined) return runtime === "bun" || runtime === "auto" ? "bun" : "none";
  if (sandbox !== undefined) return "bun";
  const path = notePath(process.env, "runtime", noteKey(head));
  const said = parseGuess(readNote(path));
  note = { path, said };
  return said ?? "bun";
}

/**
 * What the note is kept by: what decides a run's runtime outside its config files' text. The
 * directory and --config, and the variables config and settings are found by (HOME, XDG_CONFIG_HOME,
 * MCPX_*); the rest of the environment, and the files' text, are not in it (a wrong guess costs a start).
 */
function noteKey(head: string[]): unknown {
  const env = Object.entries(process.env).filter(([k]) => k.startsWith("MCPX_") || k === "HOME" || k === "XDG_CONFIG_HOME");
  // in any order: notePath hashes the key with its object keys sorted
  return [process.cwd(), flagValue(head, "--config") ?? null, Object.fromEntries(env)];
}

function parseGuess(text: string | undefined): Guess | undefined {
  try {
    const kind = text === undefined ? undefined : (JSON.parse(text) as { kind?: unknown }).kind;
    return kind === "bun" || kind === "deno" || kind === "node" || kind === "none" ? kind : undefined;
  } catch {
    return undefined;
  }
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
  const wanted = early?.wanted();
  if (note && wanted !== undefined && wanted !== (note.said ?? "bun")) writeNote(note.path, JSON.stringify({ kind: wanted }));
}

async function shapeFromArgv(kind: "run" | "exec", head: string[], guess: ReadyKind): Promise<RuntimeShape | undefined> {
  const dir = cacheDir(process.env);
  // the first run builds the bundle, and starts its own runtime
  const bundle = builtRuntimeBundle(dir);
  if (!bundle.exists) return undefined;
  const env: Record<string, string> = {};
  head.forEach((a, i) => {
    const item = a === "--env" ? head[i + 1] : a.startsWith("--env=") ? a.slice(6) : undefined;
    const eq = item?.indexOf("=") ?? -1;
    if (item && eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
  });
  // `exec -` reads the snippet from stdin, so the script's stdin is a pipe (cmd/script-command.ts)
  const stdin = kind === "exec" && head.includes("-") ? "pipe" : "inherit";
  // as execute() shapes a default run: session.cwd is process.cwd(), exec.autoInstall is off
  const how: ShapeOptions = { cacheDir: dir, env: scriptEnv(process.env, env), cwd: process.cwd(), stdin };
  if (guess === "bun") return bunShape(bundle.path, { ...how, autoInstall: false });
  // Deno's and Node's command lines are found (PATH, node_modules/.bin) only by those who use them
  const runtimes = await import("../lib/runtime/kinds.ts");
  try {
    return guess === "deno" ? runtimes.denoShape(bundle.path, { ...how, autoInstall: false }) : runtimes.nodeShape(bundle.path, how);
  } catch {
    return undefined; // not installed: the run says so
  }
}
