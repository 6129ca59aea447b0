// What ends a run's process groups when the host itself cannot: a host killed with SIGKILL (or one
// that crashes) runs none of its own cleanup, so a hook it started (a `run` hook in a group of its
// own) would run on until it finished by itself. A script's runtime watches its host on its own
// (launcher/runtime.ts watchHost); a command such as `sleep 600` cannot. So the first group a host
// starts also starts one small watcher, a POSIX shell reading the host's pipe: `+PGID` when a group
// is started, `-PGID` when it has ended. The pipe's end is the host's end, however it came: the groups
// still listed then get SIGTERM and, after the kill grace, SIGKILL. A host that ended them itself has
// listed none, and its watcher exits at once. docs/decisions/0006-processes-end-with-their-run.md.
//
// Where there is no /bin/sh (a container with nothing but the binary), nothing watches: a group then
// outlives a SIGKILLed host until it ends by itself, as it did before.

import { existsSync } from "node:fs";
import type { FileSink } from "bun";
import { KILL_GRACE_MS } from "./group.ts";

const SHELL = "/bin/sh";

/** the watcher: keeps the listed groups; on EOF, SIGTERM to those still alive, SIGKILL to what is left after the kill grace (checked every 50 ms) */
const WATCHER = `g=" "
while IFS= read -r l; do
  case "$l" in
    +*) g="$g\${l#+} " ;;
    -*) case "$g" in *" \${l#-} "*) g="\${g%% \${l#-} *} \${g#* \${l#-} }" ;; esac ;;
  esac
done
alive=""
for p in $g; do kill -0 -$p 2>/dev/null && alive="$alive $p"; done
[ -z "$alive" ] && exit 0
for p in $alive; do kill -TERM -$p 2>/dev/null; done
n=0
while [ $n -lt ${Math.ceil(KILL_GRACE_MS / 50)} ]; do
  left=""
  for p in $alive; do kill -0 -$p 2>/dev/null && left="$left $p"; done
  [ -z "$left" ] && exit 0
  sleep 0.05 2>/dev/null || sleep 1
  n=$((n + 1))
done
for p in $left; do kill -KILL -$p 2>/dev/null; done`;

let pipe: FileSink | undefined | null;

function watcher(): FileSink | undefined {
  if (pipe !== undefined) return pipe ?? undefined;
  pipe = null;
  if (process.platform === "win32" || !existsSync(SHELL)) return undefined;
  try {
    const proc = Bun.spawn([SHELL, "-c", WATCHER], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // a group of its own: a terminal's Ctrl-C, or a kill of the host's group, must not end it first
      detached: true,
      // nothing of the host's environment (its HOME, its run markers): it is no run's process
      env: { PATH: "/usr/bin:/bin" },
    });
    // it lives as long as the host: neither the host's exit nor its event loop waits for it
    proc.unref();
    (proc.stdin as FileSink).unref?.();
    pipe = proc.stdin as FileSink;
  } catch {
    return undefined;
  }
  return pipe;
}

function say(line: string): void {
  const sink = watcher();
  if (!sink) return;
  try {
    sink.write(line);
    sink.flush();
  } catch {
    pipe = null; // the watcher is gone: nothing watches from here on
  }
}

/** the group led by pgid is to be ended if the host dies before it has ended it */
export function watchGroup(pgid: number): void {
  say(`+${pgid}\n`);
}

/** the group led by pgid has ended */
export function unwatchGroup(pgid: number): void {
  if (pipe) say(`-${pgid}\n`);
}
