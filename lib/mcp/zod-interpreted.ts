// The MCP SDK checks the messages it still handles itself (initialize, tools/list, notifications)
// with zod. By default zod compiles each object schema into a parser with `new Function` the first
// time it is used: worth it for a schema parsed thousands of times, a loss for ours, each parsed a
// few times per connection (the hot path, tools/call, skips zod: decision 0011). Interpreted, the
// first initialize parses sooner and loading the SDK takes less CPU from the server it is about to
// talk to, which is starting on the same cores (decision 0018 has the figures, and why zod is a
// dependency: the setting only reaches the SDK through the one copy of zod they share).
// zod reads the setting when a schema is built, so this module is imported before any SDK module
// that builds schemas: first among pool.ts's imports, and before each mcpserver module's.

import { config } from "zod/v4/core";

config({ jitless: true });
