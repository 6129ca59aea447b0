// A wrong command line or request, reported before anything runs (lib/errors/codes.ts USAGE, exit 2).
// Here rather than beside the flag parser because lib/mcp, lib/trust and lib/render throw it too.

import { McpxError } from "./mcpx-error.ts";

export class UsageError extends McpxError {
  constructor(message: string) {
    super(message, "USAGE");
  }
}
