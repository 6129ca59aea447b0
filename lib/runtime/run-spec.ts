// What a running script gives back besides its outcome: the few frame types of the run's stream its
// runtime produces (lib/exec/frames.ts has them all), and the shape of an error it reports.

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
