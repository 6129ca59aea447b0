// Bench peer of workload-script.ts, run by test/bench/bench.ts with plain bun (rows 13 and 14): the
// same modes, calls, order and checks, from the raw MCP SDK client (Client + StdioClientTransport) in
// this one process, against the same server started the same way; prints the same JSON line.
// Usage: bun test/bench/sdk-workload.ts (bytes SIZE N SHA256 | flight K TOTAL) COMMAND [ARGS…]

import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [mode, a, b, ...rest] = process.argv.slice(2);
const sha = mode === "bytes" ? rest.shift() : undefined;
const [command, ...args] = rest;
if ((mode !== "bytes" && mode !== "flight") || !command)
  throw new Error("usage: bun test/bench/sdk-workload.ts (bytes SIZE N SHA256 | flight K TOTAL) COMMAND [ARGS…]");

const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
const client = new Client({ name: "mcpx-bench-workload-peer", version: "0.0.0" }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }));
const text = (r: unknown) => (r as { content?: Array<{ text?: string }> }).content?.[0]?.text;
const call = async (name: string, a: Record<string, unknown>) => text(await client.callTool({ name, arguments: a }));
try {
  // mcpx lists the tools once before its first call; do the same so both sides warm up alike
  await client.listTools();
  if (mode === "bytes") {
    const size = Number(a);
    const n = Number(b);
    const first = await call("bytes", { size });
    if (typeof first !== "string" || createHash("sha256").update(first).digest("hex") !== sha)
      throw new Error(`bytes(${size}) answered ${typeof first === "string" ? `${first.length} characters of another text` : typeof first}`);
    const [head, tail] = [first.slice(0, 64), first.slice(-64)];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const out = await call("bytes", { size });
      if (typeof out !== "string" || out.length !== size || !out.startsWith(head) || !out.endsWith(tail))
        throw new Error(`call ${i}: bytes(${size}) answered another text`);
    }
    console.log(JSON.stringify({ mode, n, ms: performance.now() - t0 }));
  } else {
    const k = Number(a);
    const total = Number(b);
    const batch = async (from: number, count: number) => {
      const messages = Array.from({ length: count }, (_, i) => `f-${from + i}`);
      const outs = await Promise.all(messages.map((message) => call("echo", { message })));
      outs.forEach((out, i) => {
        if (out !== messages[i]) throw new Error(`call ${from + i}: expected ${messages[i]}, got ${JSON.stringify(out)}`);
      });
    };
    await batch(-k, k);
    const t0 = performance.now();
    for (let done = 0; done < total; done += k) await batch(done, Math.min(k, total - done));
    console.log(JSON.stringify({ mode, n: total, ms: performance.now() - t0 }));
  }
} finally {
  await client.close();
}
