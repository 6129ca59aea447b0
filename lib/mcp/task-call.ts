// A tools/call as a task (MCP 2025-11-25 tasks, SEP-1686), for a tool the server lists with
// execution.taskSupport "required": the call is answered at once with a task, followed with
// tasks/get at the server's pollInterval until it ends, and its tasks/result is the call's result,
// relayed as a plain call's would be (the pool checks it against the output schema after this).
// Each new status is a progress note (the status line, the run's progress frames). The call's
// timeout, the end of the run that made it and the connection's close cancel the task upstream with
// tasks/cancel. A task that needs input (input_required) is followed with tasks/result at once,
// which carries the server's questions to the client's handlers and answers when the task ends.
// A tool that says "optional" is called plainly, as every client without tasks calls it
// (docs/decisions/0022). The 2026-07-28 revision has no tasks (SEP-2663 moved them to an extension
// the SDK v2 client does not speak): a connection of that era refuses such a call.

import { sdkError } from "./call-failure.ts";
import { PASS_THROUGH, callParams, type Connection, type OneCall } from "./connection.ts";
import type { Progress } from "./server-notes.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isPlainObject } from "../util/json-type.ts";

/** the wait between two tasks/get when the server suggests none: the SDK's own default */
const DEFAULT_POLL_MS = 1000;
/** the shortest wait between two tasks/get, whatever the server suggests: a pollInterval of 0 must not spin */
const MIN_POLL_MS = 10;
/** how long a tasks/cancel's answer is waited for before the call fails (or the connection closes); it is sent either way */
const CANCEL_WAIT_MS = 1000;
/** the key a server's tasks/result adds to say which task it answers: the task's, not the tool's, so not relayed */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

type Task = { taskId: string; status: string; statusMessage?: string; pollInterval?: number };
type Ask = (method: string, params: Record<string, unknown>, signal?: AbortSignal) => Promise<unknown>;

/** the SDK v1 Client's request, as mcpx uses it (the v2 client of a 2026-07-28 connection has no cancelTask) */
interface TaskClient {
  request(
    req: { method: string; params: Record<string, unknown> },
    schema: unknown,
    opts: { timeout: number; signal?: AbortSignal; onprogress?: (p: Progress) => void },
  ): Promise<unknown>;
  cancelTask?: unknown;
}

/** true when the server's last list said the tool must be called as a task */
export function needsTask(conn: Connection, tool: string): boolean {
  return conn.taskTools?.has(tool) === true;
}

/** the tasks each transport has in flight, cancelled when it closes (an interrupted `mcpx call`, a pool closing) */
const live = new WeakMap<Transport, Map<string, Ask>>();

/** the call's result (what tasks/result answered), or the error it failed with; `onprogress` hears each new status */
export async function callAsTask(conn: Connection, c: OneCall, onprogress?: (p: Progress) => void): Promise<unknown> {
  const client = conn.client as unknown as TaskClient;
  if (typeof client.cancelTask !== "function")
    throw await sdkError(
      "InvalidRequest",
      `Tool "${c.tool}" requires task-based execution, which the 2026-07-28 protocol leaves to an extension mcpx does not speak`,
    );
  // one signal for the call's timeout and for the end of the run that made it
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort("timeout"), c.timeoutMs);
  const runEnded = () => stop.abort("the run ended");
  if (c.notes?.signal.aborted) runEnded();
  c.notes?.signal.addEventListener("abort", runEnded, { once: true });
  const ask: Ask = (method, params, signal = stop.signal) =>
    client.request({ method, params }, PASS_THROUGH, { timeout: c.timeoutMs, signal, ...(method === "tools/call" && onprogress ? { onprogress: heard } : {}) });
  // the server's own notifications/progress during the task (its token stays valid until the task ends)
  let last: Progress | undefined;
  const heard = (p: Progress) => {
    last = p;
    onprogress?.(p);
  };
  let said = "";
  let count = 0;
  const status = (t: Task) => {
    const message = t.statusMessage ?? t.status;
    if (!onprogress || message === said) return;
    said = message;
    count++;
    onprogress(last ? { ...last, message } : { progress: count, message });
  };
  let task: Task | undefined;
  try {
    const created = await ask("tools/call", { ...callParams(c), task: {} });
    // a server that ran the call plainly (it may, for a request it cannot make a task of) answered it
    if (!isPlainObject(created) || !isPlainObject(created.task) || typeof created.task.taskId !== "string") return created;
    task = await asTask(created.task, `tools/call "${c.tool}" as a task`);
    track(conn.transport, task.taskId, ask);
    for (;;) {
      status(task);
      if (task.status === "completed" || task.status === "failed" || task.status === "input_required") {
        return withoutTaskMeta(await ask("tasks/result", { taskId: task.taskId }));
      }
      if (task.status === "cancelled")
        throw await sdkError("InternalError", `the server cancelled task ${task.taskId}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
      await pause(Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS), stop.signal);
      if (stop.signal.aborted) break;
      task = await asTask(await ask("tasks/get", { taskId: task.taskId }), `tasks/get of task ${task.taskId}`);
    }
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    c.notes?.signal.removeEventListener("abort", runEnded);
    if (task) live.get(conn.transport)?.delete(task.taskId);
  }
  // stopped: by the call's timeout or the run's end; the server is told, then the call fails as any call would
  if (task) await cancelTask(ask, task.taskId);
  if (stop.signal.reason === "timeout") {
    const { McpError, ErrorCode } = await import("@modelcontextprotocol/sdk/types.js");
    throw McpError.fromError(ErrorCode.RequestTimeout, "Request timed out", { timeout: c.timeoutMs });
  }
  throw new Error(`cancelled: ${String(stop.signal.reason)}`);
}

/** a tasks/get answer, checked for what the loop reads of it: a string status */
async function asTask(answer: unknown, what: string): Promise<Task> {
  if (isPlainObject(answer) && typeof answer.status === "string" && typeof answer.taskId === "string") return answer as Task;
  throw await sdkError("InvalidParams", `${what} answered ${JSON.stringify(answer)}, not a task ({taskId, status, …})`);
}

/** tasks/cancel, its answer waited for at most CANCEL_WAIT_MS (a task already ended is refused: nothing to do) */
function cancelTask(ask: Ask, taskId: string): Promise<void> {
  const answered = ask("tasks/cancel", { taskId }, AbortSignal.timeout(CANCEL_WAIT_MS)).then(
    () => {},
    () => {},
  );
  return answered;
}

/** remembers the task until it ends; the first task on a transport makes its close cancel whatever is still in flight */
function track(transport: Transport, taskId: string, ask: Ask): void {
  let tasks = live.get(transport);
  if (!tasks) {
    const inFlight = new Map<string, Ask>();
    tasks = inFlight;
    live.set(transport, inFlight);
    const close = transport.close.bind(transport);
    transport.close = async () => {
      await Promise.all([...inFlight].map(([id, cancelWith]) => cancelTask(cancelWith, id)));
      inFlight.clear();
      return close();
    };
  }
  tasks.set(taskId, ask);
}

/** a wait that ends early when the signal aborts */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const t = setTimeout(finish, ms);
    function finish() {
      clearTimeout(t);
      signal.removeEventListener("abort", finish);
      done();
    }
    signal.addEventListener("abort", finish, { once: true });
  });
}

/** tasks/result's answer without the related-task key the server adds, so the result is the tool's as a plain call returns it */
function withoutTaskMeta(result: unknown): unknown {
  if (!isPlainObject(result) || !isPlainObject(result._meta) || !(RELATED_TASK in result._meta)) return result;
  const { [RELATED_TASK]: _task, ...meta } = result._meta;
  const { _meta: _old, ...rest } = result;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
