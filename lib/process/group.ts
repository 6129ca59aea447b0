// Ending a process group: SIGTERM, then SIGKILL for whatever is still there after the kill grace.
// Every process mcpx starts in a group of its own (a script's runtime, a hook) ends through here.

/**
 * How long a process group (or a set of processes) gets between SIGTERM and SIGKILL. It bounds how
 * long a process that ignores SIGTERM can hold a run after its timeout: a hook with a 1 s timeout
 * that ignores SIGTERM ends within 1 s + this. A second is ample for a process that handles SIGTERM to
 * flush and exit (a runtime exits at once, a test runner cleans its temp dir), and short enough that
 * a timeout still means "about this long". docs/hooks.md and docs/runtimes.md quote it: change
 * them with it.
 */
export const KILL_GRACE_MS = 1000;

/** how often a graceful end looks whether everything is gone yet */
export const GONE_POLL_MS = 25;

/** sends sig to the whole group led by pid; false when the group no longer exists */
function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false; // the group is already gone
  }
}

/** SIGTERM to the whole group, then SIGKILL once the grace period is over for anything that ignores it */
export async function endGroup(pid: number): Promise<void> {
  if (!signalGroup(pid, "SIGTERM")) return;
  for (let waited = 0; waited < KILL_GRACE_MS; waited += GONE_POLL_MS) {
    await Bun.sleep(GONE_POLL_MS);
    if (!signalGroup(pid, 0)) return;
  }
  signalGroup(pid, "SIGKILL");
}
