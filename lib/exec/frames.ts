// The frame stream: the one thing every surface (CLI, /v1/exec, mcpx_exec) speaks.
// One table of frame types; the order rules live in frame-order.ts.

import type { HookFrameBody } from "../hooks/types.ts";
import type { ScriptFrame, SerializedError } from "../runtime/run-spec.ts";

export type { HookFrameBody, SerializedError };

export type Frame =
  | { type: "start"; runId: string }
  | ({ type: "hook" } & HookFrameBody)
  /** log, emit, stdout and stderr: what the script's runtime says (lib/runtime/run-spec.ts) */
  | ScriptFrame
  /** a server's notifications/message during the run (lib/mcp/server-notes.ts): a log frame with its server */
  | { type: "log"; level: ScriptLogLevel; message: string; server: string; logger?: string }
  /** a call's notifications/progress */
  | { type: "progress"; server: string; tool: string; progress: number; total?: number; message?: string }
  | {
      type: "call";
      server: string;
      tool: string;
      argsHash: string;
      durationMs: number;
      ok: boolean;
      destructiveHint?: boolean;
      error?: string;
      /** made by a hook's action: the hooks that led to it, outermost first (lib/hooks/call-chain.ts) */
      by?: string[];
    }
  | { type: "result"; value: unknown }
  | { type: "error"; error: SerializedError }
  | { type: "end"; exitCode: number; durationMs: number };

export type FrameType = Frame["type"];
type ScriptLogLevel = Extract<ScriptFrame, { type: "log" }>["level"];

/**
 * Every frame type, with where it may stand. The guard test proves each is produced by a real run.
 * `artifact` is in the design's order but nothing produces it yet, so it is not declared (a type
 * nothing emits must not exist).
 */
export const FRAME_TYPES: Record<FrameType, { slot: "open" | "before" | "body" | "settle" | "final" | "after" | "close"; doc: string }> = {
  start: { slot: "open", doc: "first frame; carries runId" },
  hook: { slot: "body", doc: "a hook ran: {on, phase, action, effect, durationMs, changed, original?}; its slot follows its phase" },
  log: { slot: "body", doc: "log(...) / log.warn(...) from the script, or a server's log message (with server, logger?)" },
  emit: { slot: "body", doc: "emit(value) from the script" },
  stdout: { slot: "body", doc: "text the script wrote to stdout" },
  stderr: { slot: "body", doc: "text the script wrote to stderr" },
  call: { slot: "body", doc: "one upstream tools/call: server, tool, argsHash, durationMs, ok, destructiveHint" },
  progress: { slot: "body", doc: "a call's progress as its server reports it: server, tool, progress, total?, message?" },
  result: { slot: "final", doc: "the run's value; exactly one of result|error" },
  error: { slot: "final", doc: "the run's error; exactly one of result|error" },
  end: { slot: "close", doc: "last frame: exitCode, durationMs" },
};
