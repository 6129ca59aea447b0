// What one script run is given and what it gives back: the run's spec, the handlers that take its
// frames and answer its tool calls, and its outcome. What the runtime says is a few frame types of
// the run's stream (lib/exec/frames.ts has them all); a call's answer comes from whoever holds the
// handlers, which this folder knows nothing of.

import type { PhaseLine } from "../../launcher/template.ts";
// type-only: the wire's code is evaluated from the runtime's own text (loadWire, launcher-files.ts says why)
import type { FeatureOp, ServerBinding, WorkspaceOp } from "../../launcher/wire.ts";
import type { SandboxEngine } from "../settings/choices.ts";
import type { ScriptPhase } from "../settings/registry.ts";
import type { RuntimeName } from "./kinds.ts";
import type { RuntimeSource } from "./ready-runtime.ts";
import type { SandboxAllow } from "./sandbox-args.ts";

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  /**
   * machine-readable reason: a frame code of lib/errors/codes.ts when mcpx made the error ("TOOL_ERROR", "REFUSED", …);
   * a script's own error may carry its own
   */
  code?: string;
  /** extra fields a ToolError carries (server, tool, raw result) */
  data?: unknown;
}

type LogLevel = "debug" | "info" | "warn" | "error";

/** the frames a running script produces, in the order it produced them */
export type ScriptFrame =
  | { type: "log"; level: LogLevel; message: string }
  | { type: "emit"; value: unknown }
  /** `bytes`: base64 of the exact bytes, only when they are not UTF-8 (then `data` has U+FFFD where they were) */
  | { type: "stdout"; data: string; bytes?: string }
  | { type: "stderr"; data: string };

/** what a script's call is answered with: the tool's result, or the error it failed with */
export type CallAnswer = { ok: true; value: unknown } | { ok: false; error: SerializedError };

export interface RunSpec {
  runId: string;
  scriptPath: string;
  scriptName: string;
  args: string[];
  export?: string;
  /** each phase's lines with their origins, which an error thrown by a line names */
  phases: Record<ScriptPhase, PhaseLine[]>;
  runtime: RuntimeName;
  /** 0 = no limit */
  timeoutMs: number;
  /** the setting timeoutMs came from, as a timeout error names it */
  timeoutFrom?: string;
  /** the heap limit in MiB, 0 = none; and the setting it came from, as an out-of-memory error names it */
  heap?: { mb: number; from: string };
  env: Record<string, string | undefined>;
  cwd: string;
  /** "inherit" passes mcpx's own stdin; a string is written and closed */
  stdin: "inherit" | string;
  servers: ServerBinding[];
  cacheDir: string;
  sockDir: string;
  signal?: AbortSignal;
  /** exec.autoInstall: the runtime may download packages the script imports */
  autoInstall: boolean;
  /** set when the run is sandboxed: what exec.sandboxAllow grants, the variables the caller set (ExecOptions.env), and its engine (exec.sandboxEngine) */
  sandbox?: { allow: SandboxAllow; callerEnv: Record<string, string>; engine: SandboxEngine };
  /** the caller set variables of its own for this run (ExecOptions.env) */
  callerEnv: boolean;
  /** where an unsandboxed run gets its runtime: one started before the run (ready-runtime.ts), or a new one */
  runtimes?: RuntimeSource;
}

export interface RunHandlers {
  /** the script's frames, in the order the script produced them */
  frame(f: ScriptFrame): void;
  /** one tool call from the script; the host answers it, through `answered` as soon as the answer is known */
  call(server: string, tool: string, args: Record<string, unknown>, answered: (answer: CallAnswer) => void): Promise<CallAnswer>;
  /** one resources.read or prompts.get from the script, answered as a call is */
  feature(op: FeatureOp, server: string, target: string, args: Record<string, string>): Promise<CallAnswer>;
  /** the script's artifacts as they arrive (lib/artifacts/run-artifacts.ts): begun, written, closed (answered) */
  artifact: {
    open(aid: number, name: string, mime?: string): void;
    data(aid: number, chunk: { text?: string; b64?: string }): void;
    close(aid: number): CallAnswer;
  };
  /** one operation of the script's `workspace` global, done at once (lib/workspace/workspace.ts) */
  workspace(op: WorkspaceOp, name: string, data: WorkspaceData): CallAnswer;
}

/** what a workspace write carries: text, or bytes as base64; append adds to the file */
export interface WorkspaceData {
  text?: string;
  b64?: string;
  append?: boolean;
}

export interface RunOutcome {
  ok: boolean;
  value?: unknown;
  error?: SerializedError;
  exitCode: number;
}
