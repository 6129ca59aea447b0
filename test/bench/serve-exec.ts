// Bench row 9, run by test/bench/bench.ts: one `mcpx_exec` round trip through `mcpx serve` (an MCP
// client's tools/call to its answer), sandboxed on the default engine (the embedded QuickJS) vs
// unsandboxed (`--sandbox off`: the embedded Bun, a runtime started before its run), and, for
// reference, on the Deno sandbox. One serve per side, started once and warmed, its fake-server kept
// up by its pool; the sides alternate call by call. Every answer is checked.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const SERVE_EXEC_SOURCE = 'return await fake.echo({ message: "x" })';

export interface ServeExecSides {
  sandboxed: number[];
  unsandboxed: number[];
  deno: number[];
}

type Side = keyof ServeExecSides;
const FLAGS: Record<Side, string[]> = { sandboxed: [], unsandboxed: ["--sandbox", "off"], deno: ["--sandbox-engine", "deno"] };

async function open(mcpx: string, cwd: string, env: Record<string, string>, flags: string[]): Promise<Client> {
  const client = new Client({ name: "mcpx-bench-serve", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command: mcpx, args: ["serve", ...flags], cwd, env, stderr: "ignore" }));
  return client;
}

async function roundTrip(client: Client, side: Side): Promise<number> {
  const t0 = performance.now();
  const r = (await client.callTool({ name: "mcpx_exec", arguments: { source: SERVE_EXEC_SOURCE } })) as {
    structuredContent?: { ok?: boolean; result?: unknown };
  };
  const ms = performance.now() - t0;
  if (r.structuredContent?.ok !== true || r.structuredContent.result !== "x")
    throw new Error(`bench 9: ${side} mcpx_exec answered ${JSON.stringify(r).slice(0, 400)}`);
  return ms;
}

export async function measureServeExec(mcpx: string, cwd: string, env: Record<string, string>, rounds: number, warmup: number): Promise<ServeExecSides> {
  const sides = Object.keys(FLAGS) as Side[];
  const clients = {} as Record<Side, Client>;
  const out: ServeExecSides = { sandboxed: [], unsandboxed: [], deno: [] };
  try {
    for (const side of sides) clients[side] = await open(mcpx, cwd, env, FLAGS[side]);
    for (let i = 0; i < warmup; i++) for (const side of sides) await roundTrip(clients[side], side);
    for (let i = 0; i < rounds; i++) {
      // who goes first rotates every round
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(i + j) % sides.length]!;
        out[side].push(await roundTrip(clients[side], side));
      }
    }
  } finally {
    for (const c of Object.values(clients)) await c.close().catch(() => {});
  }
  return out;
}
