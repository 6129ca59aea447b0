// The error of an error frame (or of a failed call's answer) when mcpx makes it without throwing:
// its name and code come from the table in codes.ts, the same row a thrown McpxError of that kind
// takes its name and exit code from, so a frame and a thrown error of one kind never disagree.

import { type ErrorCode, errorNameOf, type FrameCode, frameCodeOf } from "./codes.ts";

/** the shape of lib/exec/frames.ts's SerializedError that mcpx's own errors fill */
export interface FrameError {
  name: string;
  code: FrameCode;
  message: string;
  data?: unknown;
}

/** the frame's error for a failure of this code */
export function frameError(code: ErrorCode, message: string, data?: unknown): FrameError {
  return data === undefined
    ? { name: errorNameOf(code), code: frameCodeOf(code), message }
    : { name: errorNameOf(code), code: frameCodeOf(code), message, data };
}

/**
 * a failed call's answer: a ToolError whatever the code, because that is what the script's call
 * rejects with (launcher/serialize.ts revives it by that name); the code says why
 */
export function callError(code: ErrorCode, message: string, data?: unknown): FrameError {
  return { ...frameError(code, message, data), name: errorNameOf("TOOL_ERROR") };
}
