// The time and memory bounds a serving process puts on the runs of one door. An agent's run
// (mcpx_exec: code from whatever the model wrote) gets exec.agentTimeout and exec.agentMaxHeap by
// default, so a busy loop or a memory bomb ends as an error instead of taking the host; the CLI and
// /v1/exec keep no time limit by default, and exec.maxHeap (off by default) on every door.

import type { Session } from "../session/session.ts";
import { stricterLimit } from "../hooks/policy.ts";
import type { Door } from "../runtime/sandbox-args.ts";

export interface RunLimits {
  /** 0 = none beyond the run's own timeoutMs */
  timeoutMs: number;
  timeoutFrom: string;
  /** 0 = none */
  heapMb: number;
  heapFrom: string;
}

export function runLimits(session: Pick<Session, "get">, door: Door): RunLimits {
  const own = session.get("exec.maxHeap");
  if (door !== "mcp") return { timeoutMs: 0, timeoutFrom: "exec.timeout / --timeout", heapMb: own, heapFrom: "exec.maxHeap" };
  const agentHeap = session.get("exec.agentMaxHeap");
  const heapMb = stricterLimit(own, agentHeap);
  return {
    timeoutMs: session.get("exec.agentTimeout"),
    timeoutFrom: "exec.agentTimeout, the limit of every mcpx_exec run",
    heapMb,
    heapFrom: heapMb === agentHeap ? "exec.agentMaxHeap" : "exec.maxHeap",
  };
}
