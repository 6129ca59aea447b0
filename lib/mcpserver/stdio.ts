// `mcpx serve`: the MCP server over stdio, to clients of both protocol eras. The SDK v2's
// serveStdio reads the opening exchange and pins the connection's era: a 2025 opening
// (`initialize`, or any message without a 2026 envelope) gets mcpx's SDK v1 server (server.ts), so
// a 2025 client meets the very server and bytes it always has; a 2026-07-28 opening
// (`server/discover`, or a request with the envelope) gets the v2 server (server-modern.ts). Both
// serve the same handlers. Stdout carries MCP messages and nothing else (every log line goes to
// stderr); the server ends when its client closes stdin, or on SIGINT/SIGTERM, and then cancels
// the runs in flight and closes the engine (upstream pool, observers).

import "../mcp/zod-interpreted.ts";
import type { Server as V2Server } from "@modelcontextprotocol/server";
import { serveStdio as serveEras } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, type ServeDeps } from "./server.ts";
import { createModernServer } from "./server-modern.ts";
import { StdioLineServerTransport } from "./stdio-transport.ts";
import { newAgentSession } from "./agent-session.ts";
import { servingCalls } from "../util/jit-policy.ts";

/** resolves once the client has gone and everything is closed */
export async function serveStdio(given: ServeDeps): Promise<void> {
  // it serves calls from here on: its code tiers up as usual (the binary starts reluctant)
  servingCalls();
  // one agent, one session: the process's (its workspace ends when the process does)
  const agent = newAgentSession(given.session);
  const deps: ServeDeps = { ...given, agent };
  // anything in this process that prints through console would corrupt the MCP stream
  console.log = console.info = console.debug = console.warn = console.error;
  // a request as large as an answer mcpx would read from a server (mcp.maxMessage), not the SDK's 10 MB;
  // a larger one is answered with an error and the server reads on
  const transport = new StdioLineServerTransport(process.stdin, process.stdout, {
    maxMessage: deps.session.get("mcp.maxMessage"),
    unanswerable: (text) => deps.session.log("warn", text),
  });
  // the instances serveStdio made (one, or a discarded probe's and the one that serves), so that shutdown waits for their runs
  const instances: { close(): Promise<void> }[] = [];
  const served = serveEras(
    ({ era }) => {
      const mcp = era === "legacy" ? createMcpServer(deps) : createModernServer(deps);
      instances.push(mcp);
      // upstream questions are forwarded to a 2025 client only: a 2026 request is never asked mid-way (decision 0020)
      if (era === "legacy") deps.clientAsks?.attach((mcp as ReturnType<typeof createMcpServer>).server);
      // serveStdio only connects a legacy instance to its channel and passes messages through, which
      // the v1 Server does as it does on any transport (a test through the binary guards the 2025 bytes)
      return mcp.server as unknown as V2Server;
    },
    { transport, onerror: (e) => deps.session.log("debug", `mcpx serve: ${e.message}`) },
  );
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    deps.session.log("debug", `mcpx serve: ${why}; closing`);
    try {
      await Promise.all(instances.map((i) => i.close()));
      await served.close();
      await deps.engine.close();
    } finally {
      agent.close();
      done();
    }
  };
  // the SDK's stdio transport does not notice end of input: a client that closes stdin has gone
  process.stdin.on("end", () => void shutdown("stdin closed"));
  process.stdin.on("close", () => void shutdown("stdin closed"));
  const onSignal = (sig: string) => () => void shutdown(sig);
  const onInt = onSignal("SIGINT");
  const onTerm = onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  try {
    await closed;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
