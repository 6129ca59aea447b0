// MCPX_TRACE=1: one line on stderr per stage of a command's start-up and run, with the milliseconds
// since the process started and the CPU milliseconds this process has used by then (user + system),
// so a cold-start regression shows where it happened, and whether it computed or waited (docs/runtimes.md
// "Tracing start-up"). Read from the environment directly, not the settings registry: the first
// stages come before any config is read. Off, a stage costs one boolean test.

import { err } from "./fd-write.ts";

const ON = process.env.MCPX_TRACE === "1";

/** notes that a stage was reached: `mcpx trace 12.34ms cpu 10.20ms config` on stderr when MCPX_TRACE=1 */
export function trace(stage: string): void {
  if (!ON) return;
  const cpu = process.cpuUsage();
  err(`mcpx trace ${performance.now().toFixed(2)}ms cpu ${((cpu.user + cpu.system) / 1000).toFixed(2)}ms ${stage}\n`);
}

/** a stage noted only the first time it is reached (the first frame, the child's first output) */
export function traceOnce(): (stage: string) => void {
  let done = false;
  return (stage) => {
    if (!ON || done) return;
    done = true;
    trace(stage);
  };
}
