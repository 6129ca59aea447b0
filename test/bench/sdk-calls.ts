// Bench peer, run by test/bench/bench.ts with plain bun: the same N sequential fake.echo calls as
// calls-script.ts, from the raw MCP SDK client (Client + StdioClientTransport) in this one process,
// against the same server started the same way. Only the loop is timed; prints {"n": N, "ms": loop time,
// "connectMs": spawn of the server to its initialize answer}.
// Usage: bun test/bench/sdk-calls.ts N WARMUP COMMAND [ARGS…]

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [nArg, warmArg, command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: bun test/bench/sdk-calls.ts N WARMUP COMMAND [ARGS…]");
const n = Number(nArg);
const warmup = Number(warmArg);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const client = new Client({ name: "mcpx-bench-peer", version: "0.0.0" }, { capabilities: {} });
// server start-up as a client sees it: spawn to the initialize answer (the SDK is already loaded)
const c0 = performance.now();
await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }));
const connectMs = performance.now() - c0;
try {
  // mcpx lists the tools once before its first call; do the same so both sides warm up alike
  await client.listTools();
  const text = (r: unknown) => (r as { content?: Array<{ text?: string }> }).content?.[0]?.text;
  for (let i = 0; i < warmup; i++) await client.callTool({ name: "echo", arguments: { message: "warm" } });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await client.callTool({ name: "echo", arguments: { message: "x" } });
    if (text(r) !== "x") throw new Error(`call ${i}: expected "x", got ${JSON.stringify(r)}`);
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ n, ms, connectMs }));
} finally {
  await client.close();
}
