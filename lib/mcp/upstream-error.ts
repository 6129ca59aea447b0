// The error of an upstream server that failed to start or to answer, whichever module of the pool
// found it; its code (UPSTREAM_*, SERVER_REFUSED, AUTH_REQUIRED) is a row of lib/errors/codes.ts.

import type { ErrorCode } from "../errors/codes.ts";
import { McpxError } from "../errors/mcpx-error.ts";

export class UpstreamError extends McpxError {
  // not the table's name: a login lost mid-session is an UpstreamError with AUTH_REQUIRED, and a
  // server.start hook's payload has always named it so
  override name = "UpstreamError";
  constructor(
    message: string,
    readonly server: string,
    code: ErrorCode,
  ) {
    super(message, code);
  }
}
