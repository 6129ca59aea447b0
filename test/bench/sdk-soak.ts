// Bench peer of soak-script.ts, run by test/bench/bench.ts with plain bun: the same SEQUENTIAL then
// CONCURRENT fake.echo calls, each with its own message and checked against it, from the raw MCP SDK
// client (Client + StdioClientTransport) in this one process, against the same server started the
// same way. Prints the same JSON line as soak-script.ts.
// Usage: bun test/bench/sdk-soak.ts SEQUENTIAL CONCURRENT COMMAND [ARGS…]

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [seqArg, concArg, command, ...args] = process.argv.slice(2);
if (!command) throw new Error("usage: bun test/bench/sdk-soak.ts SEQUENTIAL CONCURRENT COMMAND [ARGS…]");
const sequential = Number(seqArg);
const concurrent = Number(concArg);

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const client = new Client({ name: "mcpx-bench-soak-peer", version: "0.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }));
try {
  // mcpx lists the tools once before its first call; do the same
  await client.listTools();
  const echo = async (message: string) =>
    ((await client.callTool({ name: "echo", arguments: { message } })) as { content?: Array<{ text?: string }> }).content?.[0]?.text;
  let answered = 0;
  let mismatches = 0;
  const t0 = performance.now();
  for (let i = 0; i < sequential; i++) {
    const message = `seq-${i}`;
    const out = await echo(message);
    answered++;
    if (out !== message) mismatches++;
  }
  const t1 = performance.now();
  const messages = Array.from({ length: concurrent }, (_, i) => `conc-${i}`);
  const outs = await Promise.all(messages.map(echo));
  outs.forEach((out, i) => {
    answered++;
    if (out !== messages[i]) mismatches++;
  });
  const t2 = performance.now();
  console.log(JSON.stringify({ sequential, concurrent, answered, mismatches, sequentialMs: t1 - t0, concurrentMs: t2 - t1 }));
} finally {
  await client.close();
}
