// The MCP SDK checks the messages it still handles itself (initialize, tools/list, notifications)
// with zod. By default zod compiles each object schema into a parser with `new Function` the first
// time it is used: worth it for a schema parsed thousands of times, a loss for ours, each parsed a
// few times per connection (the hot path, tools/call, skips zod: decision 0011). Interpreted, the
// first initialize result parses in ~3.5 ms instead of ~7, and loading the SDK costs less CPU while
// the server it is about to talk to is starting on the same cores (issue 9, the one-shot call).
// zod reads the setting when a schema is built, so this module is imported before any SDK module
// that builds schemas: first among pool.ts's imports, and before each mcpserver module's.

import { config } from "zod/v4/core";

config({ jitless: true });
