// What ends a run's processes when the host itself cannot: a host killed with SIGKILL (or one that
// crashes) runs none of its own cleanup, so a hook it started (a `run` hook in a group of its own)
// would run on until it finished by itself. A script's runtime watches its host on its own
// (launcher/handoff.ts watchHost); a command such as `sleep 600` cannot. So before a host starts its
// first lineage root it starts one small watcher: a POSIX shell that reads a pipe from the host until
// its end. A host that exits normally says `bye` first, and the watcher just exits (the host waits
// for it to be reaped: a zombie left to init may never go). An end without
// `bye` means the host died: every process still carrying one of its lineage markers
// (`MCPX_LINEAGE=<host pid>:…`, lineage.ts; a root's descendants inherit it) gets SIGTERM, its group
// too, and SIGKILL after the kill grace. The marker is the whole protocol: a root is covered from its
// spawn, with nothing to register after it (a host killed between a spawn and a registration left
// that root unwatched). docs/decisions/0006-processes-end-with-their-run.md.
//
// Where there is no /bin/sh or grep (a container with nothing but the binary), nothing watches: such
// a process then outlives a SIGKILLed host until it ends by itself, as before.

import { existsSync } from "node:fs";
import type { FileSink } from "bun";
import { beforeExit } from "../util/before-exit.ts";
import { KILL_GRACE_MS } from "./group.ts";

const SHELL = "/bin/sh";

/**
 * The watcher ($1: the host's pid, $2: the marker's name). `grep -l` over /proc/PID/environ finds the
 * marked processes (a process's environment as it was started; unreadable ones are others'). Each
 * gets SIGTERM with its group; what is left after the kill grace (checked every 50 ms) gets SIGKILL.
 */
const WATCHER = `while IFS= read -r l; do [ "$l" = bye ] && exit 0; done
left=""
for f in $(grep -ls "$2=$1:" /proc/[0-9]*/environ 2>/dev/null); do
  p=\${f#/proc/}; p=\${p%/environ}
  kill -TERM $p 2>/dev/null && left="$left $p"
  kill -TERM -$p 2>/dev/null
done
n=0
while [ -n "$left" ] && [ $n -lt ${Math.ceil(KILL_GRACE_MS / 50)} ]; do
  sleep 0.05 2>/dev/null || sleep 1
  still=""
  for p in $left; do kill -0 $p 2>/dev/null && still="$still $p"; done
  left=$still
  n=$((n + 1))
done
for p in $left; do kill -KILL $p -$p 2>/dev/null; done`;

let pipe: FileSink | undefined | null;
let watcher: ReturnType<typeof Bun.spawn> | undefined;

/**
 * Starts the watcher for this host unless it runs: a Lineage's constructor calls it, before its root
 * is spawned. `marker` is the variable that marks a lineage's processes.
 */
export function watchHost(marker: string): void {
  if (pipe !== undefined) return;
  pipe = null;
  if (process.platform === "win32" || !existsSync(SHELL)) return;
  try {
    const proc = Bun.spawn([SHELL, "-c", WATCHER, "mcpx-host-watch", String(process.pid), marker], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // a group of its own: a terminal's Ctrl-C, or a kill of the host's group, must not end it first
      detached: true,
      // nothing of the host's environment (its HOME, its lineage marker): it is no run's process
      env: { PATH: "/usr/bin:/bin" },
    });
    // it lives as long as the host: its event loop does not wait for it (endHostWatch does, at the end)
    proc.unref();
    watcher = proc;
    beforeExit(endHostWatch);
    const sink = proc.stdin as FileSink;
    sink.unref?.();
    pipe = sink;
    // a host that ends by itself has ended its lineages (or left them on purpose): nothing to do
    process.once("exit", () => {
      if (pipe !== sink) return; // endHostWatch said it already
      try {
        sink.write("bye\n");
        sink.flush();
      } catch {
        // the watcher is gone already
      }
    });
  } catch {
    // no watcher: as where there is no shell
  }
}

/**
 * Says `bye` and waits until the watcher has exited and is reaped, so that a host that ends normally
 * leaves not even a zombie behind: one left when the host exits goes to init, and a container's init
 * may never reap it. Run by main.ts last (before-exit.ts); the "exit" handler above stays for any other way out.
 */
async function endHostWatch(): Promise<void> {
  const proc = watcher;
  const sink = pipe;
  if (!proc || !sink) return;
  watcher = undefined;
  pipe = null;
  try {
    sink.write("bye\n");
    sink.end();
  } catch {
    // the watcher is gone already
  }
  proc.ref();
  // bounded: a watcher that does not go (it always reads its pipe first) is left, as before
  await Promise.race([proc.exited, Bun.sleep(500)]);
}
