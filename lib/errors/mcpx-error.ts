// The base class of every error mcpx expects to happen (citty's CLIError is the model): it carries a
// code from the table in codes.ts, and cmd/main.ts checks it with instanceof and takes the exit code
// from the table. Anything else that reaches main.ts is a bug: its stack is printed and it exits 1.

import { exitCodeOf, type ErrorCode } from "./codes.ts";

export class McpxError extends Error {
  override name = "McpxError";
  constructor(
    message: string,
    /** the row of lib/errors/codes.ts this error is */
    readonly code: ErrorCode,
  ) {
    super(message);
  }

  /** the exit code the table gives this error */
  get exitCode(): number {
    return exitCodeOf(this.code);
  }
}
