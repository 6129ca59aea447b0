// The base class of every error mcpx expects to happen (citty's CLIError is the model): it carries a
// code from the table in codes.ts, and cmd/main.ts checks it with instanceof and takes the exit code
// from the table. Anything else that reaches main.ts is a bug: its stack is printed and it exits 1.
// Its name is its code's row too, the name an error frame of that code carries (frame-error.ts).

import { type ErrorCode, errorNameOf, exitCodeOf } from "./codes.ts";

export class McpxError extends Error {
  constructor(
    message: string,
    /** the row of lib/errors/codes.ts this error is */
    readonly code: ErrorCode,
  ) {
    super(message);
    this.name = errorNameOf(code);
  }

  /** the exit code the table gives this error */
  get exitCode(): number {
    return exitCodeOf(this.code);
  }
}
