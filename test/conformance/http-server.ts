// A tiny Streamable HTTP server for the MCP conformance suite: lib/mcpserver/http.ts's
// handleMcpHttp on 127.0.0.1, with an engine opened like `mcpx serve` opens one, from the config of
// the current directory. The daemon mounts the same handler at /mcp; the suite cannot send the
// daemon's bearer token (TCP) or reach its unix socket, so it runs against this instead.
//
//   bun test/conformance/http-server.ts [PORT]      prints `listening PORT` on stderr once ready
//
// Ends on SIGINT/SIGTERM, or when stdin (a pipe from run.ts) closes.

import { fstatSync } from "node:fs";
import { closeMcpSessions, handleMcpHttp } from "../../lib/mcpserver/http.ts";
import { openEngine } from "../../lib/session/engine.ts";
import { openSession } from "../../lib/session/session.ts";

const port = Number(process.argv[2] ?? 0);
const session = openSession({ cwd: process.cwd(), env: process.env, flags: [] });
const engine = openEngine(session);

const http = Bun.serve({
  hostname: "127.0.0.1",
  port,
  idleTimeout: 0, // a GET stream and a long run are held open
  fetch(req) {
    if (new URL(req.url).pathname !== "/mcp") return new Response("not found: use /mcp\n", { status: 404 });
    return handleMcpHttp(req, { engine, session });
  },
});

let stopping = false;
async function stop(): Promise<never> {
  if (!stopping) {
    stopping = true;
    await closeMcpSessions(engine);
    await http.stop(true);
    await engine.close();
  }
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) {
  process.stdin.on("end", () => void stop());
  process.stdin.on("close", () => void stop());
  process.stdin.resume();
}
process.stderr.write(`listening ${http.port}\n`);
