// Bench peer, run by test/bench/bench.ts with plain bun (row 11): the same N sequential fake.echo
// calls as calls-script.ts, through mcporter's runtime API (createRuntime, then runtime.callTool) in
// this one process, the server found in the same config file the mcporter CLI reads (ephemeral: the
// runtime keeps its connection for the life of the runtime, no daemon). Only the loop is timed; prints
// {"n": N, "ms": loop time}.
// Usage: bun test/bench/mcporter-calls.ts MCPORTER_DIR CONFIG N WARMUP

import { join } from "node:path";

interface Runtime {
  listTools(server: string): Promise<unknown[]>;
  callTool(server: string, tool: string, options: { args: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

const [dir, configPath, nArg, warmArg] = process.argv.slice(2);
if (!dir || !configPath) throw new Error("usage: bun test/bench/mcporter-calls.ts MCPORTER_DIR CONFIG N WARMUP");
const n = Number(nArg);
const warmup = Number(warmArg);

// mcporter is installed by `make bench` outside the project's dependencies (the Makefile says why), so it is imported by path
const { createRuntime } = (await import(join(dir, "dist/index.js"))) as { createRuntime: (o: { configPath: string }) => Promise<Runtime> };
const runtime = await createRuntime({ configPath });
try {
  // mcpx lists the tools once before its first call; do the same so both sides warm up alike
  await runtime.listTools("fake");
  const text = (r: unknown) => (r as { content?: Array<{ text?: string }> }).content?.[0]?.text;
  for (let i = 0; i < warmup; i++) await runtime.callTool("fake", "echo", { args: { message: "warm" } });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await runtime.callTool("fake", "echo", { args: { message: "x" } });
    if (text(r) !== "x") throw new Error(`call ${i}: expected "x", got ${JSON.stringify(r)}`);
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ n, ms }));
} finally {
  await runtime.close();
}
