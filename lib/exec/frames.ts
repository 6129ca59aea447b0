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
  /** an artifact the script made (artifact(name, data)): after the run's output, before onSuccess/onError */
  | { type: "artifact"; id: string; name: string; mime: string; size: number; sha256: string; uri: string }
  /** delivery "stream": an artifact's bytes after end, base64, in order (seq from 0), then its end */
  | { type: "artifact.chunk"; id: string; seq: number; data: string }
  | { type: "artifact.end"; id: string }
  | { type: "result"; value: unknown }
  | { type: "error"; error: SerializedError }
  | { type: "end"; exitCode: number; durationMs: number };

export type FrameType = Frame["type"];
type ScriptLogLevel = Extract<ScriptFrame, { type: "log" }>["level"];

/** Every frame type, with where it may stand. The guard test proves each is produced by a real run. */
export const FRAME_TYPES: Record<
  FrameType,
  { slot: "open" | "before" | "body" | "artifacts" | "settle" | "final" | "after" | "close" | "trailer"; doc: string }
> = {
  start: { slot: "open", doc: "first frame; carries runId" },
  hook: { slot: "body", doc: "a hook ran: {on, phase, action, effect, durationMs, changed, original?}; its slot follows its phase" },
  log: { slot: "body", doc: "log(...) / log.warn(...) from the script, or a server's log message (with server, logger?)" },
  emit: { slot: "body", doc: "emit(value) from the script" },
  stdout: { slot: "body", doc: "text the script wrote to stdout" },
  stderr: { slot: "body", doc: "text the script wrote to stderr" },
  call: { slot: "body", doc: "one upstream tools/call: server, tool, argsHash, durationMs, ok, destructiveHint" },
  progress: { slot: "body", doc: "a call's progress as its server reports it: server, tool, progress, total?, message?" },
  artifact: {
    slot: "artifacts",
    doc: "an artifact the script made with artifact(name, data): id, name, mime, size, sha256, uri; after the run's output, in the order made",
  },
  result: { slot: "final", doc: "the run's value; exactly one of result|error" },
  error: { slot: "final", doc: "the run's error; exactly one of result|error" },
  end: { slot: "close", doc: "exitCode, durationMs; the last frame, but for the artifacts' bytes of delivery stream" },
  "artifact.chunk": { slot: "trailer", doc: 'delivery "stream" only, after end: id, seq (from 0), data (base64 of the next bytes)' },
  "artifact.end": { slot: "trailer", doc: 'delivery "stream" only: id; the artifact\'s bytes are complete' },
};
