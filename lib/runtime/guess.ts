// Which runtime a command will want, guessed before its config is read, so that a runtime can start
// while mcpx loads the command (cmd/early-runtime.ts starts and ends it). The run takes it only if
// its real shape is exactly the guessed one, else ends it and starts its own (runtime-sources.ts), so
// a wrong guess costs a start, never a difference. Which runtime: the one --runtime names; without
// it, the kind the last run here wanted (a note kept by the directory, --config and the environment
// config and settings are found by), else Bun, the default. A sandboxed run (--sandbox, or a note
// saying so) cannot be started before it: none is.

import { cacheDir } from "../paths/dirs.ts";
import { notePath, readNote, writeNote } from "../paths/note-file.ts";
import { KINDS, RuntimeError, type Kind, type RuntimeShape } from "./kinds.ts";
import { builtRuntimeBundle } from "./launcher-files.ts";
import { scriptEnv } from "./script-env.ts";

/** what a run may want: a runtime of a kind started before it, or none ("none": it is started with its run) */
export type Guess = Kind | "none";

/** what the guess reads of a run's command line */
export interface RunArgs {
  runtime?: string;
  sandbox?: string;
  config?: string;
  /** each --env NAME=VALUE */
  env: string[];
  /** `exec -`: the snippet comes from stdin, so the script's stdin is a pipe (cmd/script-command.ts) */
  stdinScript: boolean;
}

/** the note of what the last run without --runtime and --sandbox wanted here, and what it said when read */
export interface GuessNote {
  path: string;
  said: Guess | undefined;
}

/** the kind --runtime and --sandbox name, or else the note's, or else Bun */
export function guessKind(args: RunArgs): { guess: Guess; note?: GuessNote } {
  const { runtime, sandbox } = args;
  if (sandbox !== undefined && sandbox !== "off") return { guess: "none" };
  if (runtime === "deno" || runtime === "node") return { guess: runtime };
  if (runtime !== undefined) return { guess: runtime === "bun" || runtime === "auto" ? "bun" : "none" };
  if (sandbox !== undefined) return { guess: "bun" };
  const path = notePath(process.env, "runtime", noteKey(args));
  const said = parseGuess(readNote(path));
  return { guess: said ?? "bun", note: { path, said } };
}

/**
 * What the note is kept by: what decides a run's runtime outside its config files' text. The
 * directory and --config, and the variables config and settings are found by (HOME, XDG_CONFIG_HOME,
 * MCPX_*); the rest of the environment, and the files' text, are not in it (a wrong guess costs a start).
 */
function noteKey(args: RunArgs): unknown {
  const env = Object.entries(process.env).filter(([k]) => k.startsWith("MCPX_") || k === "HOME" || k === "XDG_CONFIG_HOME");
  // in any order: notePath hashes the key with its object keys sorted
  return [process.cwd(), args.config ?? null, Object.fromEntries(env)];
}

function parseGuess(text: string | undefined): Guess | undefined {
  try {
    const kind = text === undefined ? undefined : (JSON.parse(text) as { kind?: unknown }).kind;
    return kind === "bun" || kind === "deno" || kind === "node" || kind === "none" ? kind : undefined;
  } catch {
    return undefined;
  }
}

/** notes what the run wanted, for the next run here, when that differs from what the note said */
export function noteWanted(note: GuessNote | undefined, wanted: Guess | undefined): void {
  if (note && wanted !== undefined && wanted !== (note.said ?? "bun")) writeNote(note.path, JSON.stringify({ kind: wanted }));
}

/** the shape a run of this command line would start its runtime of this kind in; undefined when none can be made yet */
export function guessedShape(args: RunArgs, kind: Kind): RuntimeShape | undefined {
  const dir = cacheDir(process.env);
  // the first run builds the bundle, and starts its own runtime
  const bundle = builtRuntimeBundle(dir);
  if (!bundle.exists) return undefined;
  const env: Record<string, string> = {};
  for (const item of args.env) {
    const eq = item.indexOf("=");
    if (eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  // as execute() shapes a default run: session.cwd is process.cwd(), exec.autoInstall is off
  const how = { cacheDir: dir, env: scriptEnv(process.env, env), cwd: process.cwd(), stdin: args.stdinScript ? "pipe" : "inherit" } as const;
  try {
    return KINDS[kind].shape(bundle.path, how);
  } catch (err) {
    // Deno or Node not installed: the run says so; a cache that cannot be written is said now
    if (err instanceof RuntimeError) return undefined;
    throw err;
  }
}
