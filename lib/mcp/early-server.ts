// A one-shot `mcpx call` starts its server before it has loaded its command or read its config. The
// server's own start is most of such a call; mcpx's own loading and resolving then overlaps it instead
// of coming first (decision 0013).
//
// What to start comes from a note that the last call of that server wrote. A call writes one only for
// a stdio server it started with no hook in force, and keys it by everything outside the config files
// that resolution depends on: the server's name, the directory, --config and the whole environment.
// The note lists every path resolution looked at, found or not, with what it held (a file signature):
// one that changed, appeared or went makes the note useless. Even then the start is only a guess: the
// call's transport takes the process only if its own start is exactly this one (command, arguments,
// environment, directory); otherwise the process is ended unused. A wrong guess costs a start, never
// a difference. Notes are kept as lib/paths/note-file.ts keeps them (0600: an entry's `env` may hold
// secrets).

import type { Subprocess } from "bun";
import { fileSignature, type FileSignature } from "../paths/file-signature.ts";
import { notePath as noteFile, readNote as readNoteFile, writeNote } from "../paths/note-file.ts";
import { stableStringify } from "../util/stable-json.ts";
import { trace } from "../util/trace.ts";
import type { Lineage } from "../process/lineage.ts";
import type { ParsedArgs } from "../settings/flags.ts";
import { serverEnv, serverLineage, serverSpawn, type ServerSpawn } from "./server-spawn.ts";

/** what a call remembers of its server's start */
export interface SpawnNote {
  command: string;
  args: string[];
  /** the entry's own variables, as config resolved them */
  env: Record<string, string>;
  cwd: string | undefined;
  /** [path, signature] of every path config resolution looked at */
  consulted: Array<[string, FileSignature]>;
}

/** what a note is kept by: the server and everything besides config files that decides its start */
export interface NoteKey {
  server: string;
  cwd: string;
  /** --config FILE, if given */
  config: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

type ServerProcess = Subprocess<"pipe", "pipe", "pipe">;

/** a server started early, and its lineage (the transport that takes it ends both) */
export interface EarlyServer {
  proc: ServerProcess;
  lineage: Lineage;
}

let early: (EarlyServer & { spawn: string }) | undefined;
/** the note read at start, as text: a call rewrites it only when what it would write differs */
let readNote: string | undefined;

function notePath(key: NoteKey): string {
  return noteFile(key.env, "early", [key.server, key.cwd, key.config ?? null, key.env]);
}

function spawnKey(s: ServerSpawn): string {
  return stableStringify([s.cmd, s.cwd ?? null, s.env]);
}

/** the start a note stands for, if the note is still valid */
function noteSpawn(text: string, env: NoteKey["env"]): ServerSpawn | undefined {
  const note = JSON.parse(text) as SpawnNote;
  if (!note.consulted.every(([path, sig]) => fileSignature(path) === sig)) return undefined;
  return serverSpawn({ command: note.command, args: note.args, env: serverEnv(env, note.env), cwd: note.cwd });
}

/**
 * Starts the server `mcpx call` will most likely start, if a valid note says which, from its command
 * line as lib/settings/flags.ts parsed it (undefined: it does not parse). Only for the plain form:
 * SERVER.TOOL, its arguments, --json and --config; any other flag may change what the call does
 * (--remote, an ad-hoc server, a setting), and so may words after --, so none starts.
 */
export function startEarlyServer(parsed: ParsedArgs | undefined, key: Omit<NoteKey, "server" | "config">): void {
  if (!parsed || parsed.settings.length > 0 || parsed.rest.length > 0) return;
  if (Object.entries(parsed.own).some(([flag, value]) => value !== undefined && flag !== "json" && flag !== "config")) return;
  const config = parsed.own.config as string | undefined;
  const target = parsed.positionals[0];
  const dot = target?.indexOf(".") ?? -1;
  if (!target || dot <= 0) return;
  const path = notePath({ ...key, server: target.slice(0, dot), config });
  let spawn: ServerSpawn | undefined;
  try {
    readNote = readNoteFile(path);
    spawn = readNote === undefined ? undefined : noteSpawn(readNote, key.env);
  } catch {
    return; // a note this version cannot read: the call starts its server as usual
  }
  if (!spawn) return;
  try {
    // the lineage first: it makes this host the subreaper that orphans of the server are reparented to
    const lineage = serverLineage();
    const proc = Bun.spawn({ ...spawn, env: { ...spawn.env, ...lineage.env() }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    early = { spawn: spawnKey(spawn), proc, lineage: lineage.track(proc.pid, false) };
    trace("server spawned early");
  } catch {
    // a command that no longer starts: the call's own start reports it
  }
}

/** the early server, if it was started exactly as `spawn` says; the caller owns it from then on */
export function takeEarlyServer(spawn: ServerSpawn): EarlyServer | undefined {
  if (!early || early.spawn !== spawnKey(spawn)) return undefined;
  const { proc, lineage } = early;
  early = undefined;
  trace("early server taken");
  return { proc, lineage };
}

/** ends the early server unless a call took it: its stdin is closed, then the usual end of a server's tree, and it is reaped */
export async function endEarlyServer(): Promise<void> {
  if (!early) return;
  const { proc, lineage } = early;
  early = undefined;
  const { endProcesses, processTree } = await import("../process/end.ts");
  const tree = processTree(proc.pid);
  try {
    proc.stdin.end();
  } catch {
    // gone already
  }
  await Promise.all([endProcesses(tree, 0), proc.exited]);
  await lineage.end();
}

/** remembers how `server` was started for the next call under the same key, unless the note already says so */
export function writeSpawnNote(key: NoteKey, note: SpawnNote): void {
  const text = JSON.stringify(note);
  if (text !== readNote) writeNote(notePath(key), text);
}
