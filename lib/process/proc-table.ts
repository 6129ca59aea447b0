// The Linux process table as plain values, read from /proc: who is whose parent, and whether a
// process carries an environment marker. Elsewhere (macOS) there is no /proc and every reader here
// answers "nothing", so callers fall back to process groups alone (docs/decisions/0006).

import { existsSync, readFileSync, readdirSync } from "node:fs";

export interface ProcEntry {
  pid: number;
  ppid: number;
  /** R, S, Z (zombie), … */
  state: string;
  /** clock ticks after boot when it started: a pid with another start time is another process */
  start: number;
}

export const HAS_PROC = (() => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
})();

/** one process's stat line, or undefined when it is gone (or not ours to read) */
export function readEntry(pid: number): ProcEntry | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  return parseStat(pid, line);
}

/**
 * Whether the process still runs: it exists and is not a zombie. A zombie has ended, though signal 0
 * still reaches it until its parent reaps it, and its parent may be one that never does (a subreaper
 * that adopted it). Where there is no /proc, signal 0 is all there is to ask.
 */
export function running(pid: number): boolean {
  if (HAS_PROC) {
    const state = readEntry(pid)?.state;
    return state !== undefined && state !== "Z";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, and is someone else's
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** parses /proc/PID/stat; the command name (field 2) may hold spaces and parentheses, so fields are counted from its last ")" */
export function parseStat(pid: number, line: string): ProcEntry | undefined {
  const close = line.lastIndexOf(")");
  if (close < 0) return undefined;
  const f = line.slice(close + 2).split(" ");
  // f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22 (starttime)
  const ppid = Number(f[1]);
  const start = Number(f[19]);
  if (!f[0] || !Number.isFinite(ppid) || !Number.isFinite(start)) return undefined;
  return { pid, ppid, state: f[0], start };
}

/** every process we can see, by pid */
export function readTable(): Map<number, ProcEntry> {
  const table = new Map<number, ProcEntry>();
  if (!HAS_PROC) return table;
  for (const name of readdirSync("/proc")) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const e = readEntry(Number(name));
    if (e) table.set(e.pid, e);
  }
  return table;
}

/**
 * The processes descended from `root` (itself not included), found through each thread's
 * /proc/PID/task/TID/children list instead of a read of every process: the host's subtree is a few
 * processes where /proc may hold hundreds, and a read of every one was a large share of an empty exec's end.
 * Where the kernel offers no children lists (CONFIG_PROC_CHILDREN), from a read of the whole table.
 */
export function readSubtree(root: number): Map<number, ProcEntry> {
  if (!hasChildrenLists()) {
    const table = readTable();
    return new Map(descendantsIn(table, [root]).map((pid) => [pid, table.get(pid)!]));
  }
  const table = new Map<number, ProcEntry>();
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tids) {
      let list: string;
      try {
        list = readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1");
      } catch {
        continue; // the thread or the process is gone
      }
      for (const word of list.split(" ")) {
        const child = Number(word);
        if (!word || table.has(child)) continue;
        const e = readEntry(child);
        if (!e) continue;
        table.set(child, e);
        stack.push(child);
      }
    }
  }
  return table;
}

let childrenLists: boolean | undefined;
function hasChildrenLists(): boolean {
  childrenLists ??= HAS_PROC && existsSync(`/proc/self/task/${process.pid}/children`);
  return childrenLists;
}

/** the pids whose parent chain in `table` reaches one of `roots` (the roots themselves not included) */
export function descendantsIn(table: ReadonlyMap<number, ProcEntry>, roots: Iterable<number>): number[] {
  const children = new Map<number, number[]>();
  for (const e of table.values()) {
    const list = children.get(e.ppid);
    if (list) list.push(e.pid);
    else children.set(e.ppid, [e.pid]);
  }
  const out: number[] = [];
  const seen = new Set<number>();
  const stack = [...roots];
  for (const r of stack) seen.add(r);
  while (stack.length) {
    for (const c of children.get(stack.pop()!) ?? []) {
      if (seen.has(c)) continue;
      seen.add(c);
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** true when the process's environment (as it was started) contains `entry` ("NAME=value") exactly */
export function hasEnvEntry(pid: number, entry: string): boolean {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const needle = Buffer.from(entry + "\0");
  const at = env.indexOf(needle);
  // at the start of the block, or right after a NUL: not the tail of another variable's value
  return at === 0 || (at > 0 && env[at - 1] === 0);
}
