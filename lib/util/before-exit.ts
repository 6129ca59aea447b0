// Work that must finish before mcpx exits and cannot be done in a synchronous "exit" handler (waiting
// for a process to be reaped, say). Whoever starts such work registers its end here; main.ts awaits
// them all, last, before process.exit.

const tasks: Array<() => Promise<void>> = [];

export function beforeExit(task: () => Promise<void>): void {
  tasks.push(task);
}

/** runs every registered task, together; a task that fails does not stop the others */
export async function runBeforeExit(): Promise<void> {
  await Promise.allSettled(tasks.splice(0).map((t) => t()));
}
