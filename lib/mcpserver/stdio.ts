// `mcpx serve`: the MCP server over stdio. Stdout carries MCP messages and nothing else (every log
// line goes to stderr); the server ends when its client closes stdin, or on SIGINT/SIGTERM, and
// then cancels the runs in flight and closes the engine (upstream pool, observers).

import "../mcp/zod-interpreted.ts";
import { createMcpServer, type ServeDeps } from "./server.ts";
import { StdioLineServerTransport } from "./stdio-transport.ts";

/** resolves once the client has gone and everything is closed */
export async function serveStdio(deps: ServeDeps): Promise<void> {
  // anything in this process that prints through console would corrupt the MCP stream
  console.log = console.info = console.debug = console.warn = console.error;
  const mcp = createMcpServer(deps);
  deps.clientAsks?.attach(mcp.server);
  // a request as large as an answer mcpx would read from a server (mcp.maxMessage), not the SDK's 10 MB;
  // a larger one is answered with an error and the server reads on
  const transport = new StdioLineServerTransport(process.stdin, process.stdout, {
    maxMessage: deps.session.get("mcp.maxMessage"),
    unanswerable: (text) => deps.session.log("warn", text),
  });
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    deps.session.log("debug", `mcpx serve: ${why}; closing`);
    try {
      await mcp.close();
      await deps.engine.close();
    } finally {
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
  mcp.server.onclose = () => void shutdown("transport closed");
  await mcp.server.connect(transport);
  try {
    await closed;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
}
