// A lineage: one process mcpx started (a script's runtime or a hook, in a group of its own; a stdio
// server, in mcpx's group) and every process descended from it, including those that left its group
// or session. On Linux the host is a child subreaper (subreaper.ts), so a process whose parent exits
// is reparented to the host instead of init; a lineage attributes such processes to the run that made them in two ways:
//   - by ancestry: while the lineage lives, a scan of /proc every LINEAGE_SCAN_MS records every
//     process whose parent chain reaches the root or a recorded member (pid + start time, so a
//     reused pid is never mistaken for a member);
//   - by an environment marker: the root is started with LINEAGE_ENV=<host pid>:<id>, which its
//     children inherit, so an adopted process that was born and orphaned between two scans is still
//     recognised among the host's children.
// Ending a lineage signals the root's group and every member: SIGTERM, then SIGKILL after
// KILL_GRACE_MS. Nothing else is ever signalled. Where there is no /proc (macOS), a lineage is its
// root's process group and nothing more. docs/decisions/0006-processes-end-with-their-run.md.

import { endProcesses } from "./end.ts";
import { endGroup } from "./group.ts";
import { watchHost } from "./host-watch.ts";
import { descendantsIn, HAS_PROC, hasEnvEntry, readEntry, readSubtree, type ProcEntry } from "./proc-table.ts";
import { becomeSubreaper, reapAdopted } from "./subreaper.ts";

/** the variable that marks every process of a lineage; the launcher leaves it in the script's environment */
const LINEAGE_ENV = "MCPX_LINEAGE";

/**
 * How often live lineages look for new descendants. A process that is started, orphaned and stripped
 * of its environment within one interval escapes; a shorter interval costs a /proc walk, which grows
 * with the machine's processes, more often for as long as any run lives. Change with docs/decisions/0006.
 */
const LINEAGE_SCAN_MS = 250;

const live = new Set<Lineage>();
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * What a lineage may be made of: the host's own subtree. With the host a subreaper, every process
 * descended from a root stays in it (an orphan is reparented to the host, or to a nested subreaper
 * such as an mcpx the script ran, which is in the subtree too), so nothing outside it can be a member.
 */
const hostSubtree = () => readSubtree(process.pid);

/** one pass over /proc for every live lineage */
function scanAll(): void {
  const table = hostSubtree();
  for (const l of live) l.observe(table);
}

export class Lineage {
  /** pid → start time of every process recorded as descended from the root */
  private readonly members = new Map<number, number>();
  private readonly entry: string;
  private root = 0;
  private rootStart: number | undefined;

  /** @param id unique among this host's lineages (a run id) */
  constructor(readonly id: string) {
    this.entry = `${LINEAGE_ENV}=${process.pid}:${id}`;
    // before the root is spawned: the kernel copies "an ancestor is a subreaper" into a process when
    // it is forked, so a root forked earlier would still send its orphans to init (measured)
    this.subreaper = HAS_PROC && becomeSubreaper();
    // likewise before the root: should this host die without ending it, its watcher does (host-watch.ts)
    watchHost(LINEAGE_ENV);
  }
  private readonly subreaper: boolean;

  /** the variables to start the root with */
  env(): Record<string, string> {
    return { [LINEAGE_ENV]: `${process.pid}:${this.id}` };
  }

  /** true once track() has read the root, where there is a subreaper to track with */
  private tracked = false;

  /**
   * Starts tracking the root's descendants. `scan` false looks only when the lineage ends: for a root
   * that lives as long as a pooled server (days, in a daemon), where a /proc walk every LINEAGE_SCAN_MS
   * would cost the idle daemon ~1% of a CPU. What leaves such a root is still found at the end, by
   * its marker among the processes reparented to this host, or under the root while it lives; only
   * a process that both left it and dropped its environment escapes.
   */
  track(root: number, scan = true): this {
    this.root = root;
    if (!this.subreaper) return this;
    this.rootStart = readEntry(root)?.start;
    this.tracked = true;
    if (!scan) return this;
    live.add(this);
    timer ??= setInterval(scanAll, LINEAGE_SCAN_MS);
    (timer as { unref?: () => void }).unref?.();
    return this;
  }

  /** records what is new in the table: descendants of the root and of members, and adopted processes carrying the marker */
  observe(table: ReadonlyMap<number, ProcEntry>): void {
    const same = (pid: number, start: number | undefined) => start !== undefined && table.get(pid)?.start === start;
    const roots = [...this.members].filter(([pid, start]) => same(pid, start)).map(([pid]) => pid);
    if (same(this.root, this.rootStart)) roots.push(this.root);
    for (const e of table.values()) {
      if (e.ppid === process.pid && e.pid !== this.root && !this.members.has(e.pid) && hasEnvEntry(e.pid, this.entry)) {
        this.members.set(e.pid, e.start);
        roots.push(e.pid);
      }
    }
    for (const pid of descendantsIn(table, roots)) if (!this.members.has(pid)) this.members.set(pid, table.get(pid)!.start);
    // an adopted member that ended is our zombie until reaped (never the root: Bun reaps that one)
    for (const [pid] of this.members) if (table.get(pid)?.state === "Z" && table.get(pid)?.ppid === process.pid) reapAdopted(pid);
  }

  private ending: Promise<void> | undefined;

  /** ends the root's group and every member (TERM, then KILL after the grace), and waits until they are gone; once */
  end(): Promise<void> {
    this.ending ??= this.tracked ? this.endAll() : endGroup(this.root);
    return this.ending;
  }

  private async endAll(): Promise<void> {
    this.observe(hostSubtree());
    live.delete(this);
    if (live.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
    const group = endGroup(this.root);
    await endProcesses([...this.members].map(([pid, start]) => ({ pid, start, adopted: true })));
    await group;
  }
}
