// Bench row 10, run by test/bench/bench.ts: what an agent's context carries for one realistic task,
// done with direct tool calls against done in mcpx's code mode. The task: read a 3 MB log with
// server-filesystem, keep its ERROR lines, write a summary file, and look up 20 entities in
// server-memory.
//   direct     every tool definition of both servers (tools/list), then every call's result as the
//              agent receives it: the whole file, the write's answer, 20 open_nodes answers
//   code mode  mcpx's own tool definitions, the mcpx_search and mcpx_describe answers an agent reads
//              to find the tools, and the mcpx_exec answer (the run's final value)
// Bytes are UTF-8 bytes of each JSON-RPC result as it arrives (what a host puts in the context);
// requests are not counted on either side. The script's source is counted on the code-mode side,
// since the agent writes it into its context. Both sides do the same work against the same servers
// and every answer is checked.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** the log's size: the 3 MB (change freely; the ratio grows with it) */
const LOG_BYTES = 3 * 1024 * 1024;
/** how many entities are looked up, as the issue asks */
const ENTITIES = 20;

export interface Economy {
  direct: { definitions: number; results: number };
  codeMode: { definitions: number; answers: number; source: number };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** a deterministic 3 MB log with one ERROR line in 50 */
function writeLog(path: string): number {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < LOG_BYTES; i++) {
    const level = i % 50 === 7 ? "ERROR" : i % 5 === 0 ? "WARN" : "INFO";
    const time = `${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`;
    const line = `2026-12-04T10:${time}Z ${level} worker-${i % 8} request ${i} handled in ${(i * 7) % 900} ms`;
    lines.push(line);
    size += line.length + 1;
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
  return lines.filter((l) => l.includes(" ERROR ")).length;
}

const entityName = (i: number) => `customer-${String(i).padStart(2, "0")}`;

const SOURCE = [
  `const log = await filesystem.read_text_file({ path: LOG });`,
  // server-filesystem answers structured content, { content: text }
  `const text = typeof log === "string" ? log : log.content;`,
  `const errors = text.split("\\n").filter((l) => l.includes(" ERROR "));`,
  `await filesystem.write_file({ path: SUMMARY, content: \`\${errors.length} errors\\n\${errors.slice(0, 5).join("\\n")}\\n\` });`,
  `const found = [];`,
  `for (let i = 0; i < ${ENTITIES}; i++) {`,
  `  const name = "customer-" + String(i).padStart(2, "0");`,
  `  const r = await memory.open_nodes({ names: [name] });`,
  `  const text = typeof r === "string" ? r : JSON.stringify(r);`,
  `  if (text.includes(name)) found.push(name);`,
  `}`,
  `return { errors: errors.length, summary: SUMMARY, found: found.length };`,
].join("\n");

async function connect(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "mcpx-bench-economy", version: "0.0.0" });
  await client.connect(new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" }));
  return client;
}

export async function measureEconomy(mcpx: string, work: string, env: Record<string, string>, binDir: string): Promise<Economy> {
  const dir = join(work, "economy");
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "app.log");
  const summary = join(dir, "summary.txt");
  const errorLines = writeLog(log);
  const memoryEnv = { ...env, MEMORY_FILE_PATH: join(dir, "memory.jsonl") };
  const fsServer = { command: join(binDir, "mcp-server-filesystem"), args: [dir] };
  const memServer = { command: join(binDir, "mcp-server-memory"), args: [] as string[] };

  // the direct side; it also puts the entities in the memory both sides read
  const fs = await connect(fsServer.command, fsServer.args, dir, env);
  const mem = await connect(memServer.command, memServer.args, dir, memoryEnv);
  const direct = { definitions: 0, results: 0 };
  try {
    const entities = Array.from({ length: ENTITIES }, (_, i) => ({
      name: entityName(i),
      entityType: "customer",
      observations: [`signed up in 2026`, `plan ${i % 3 === 0 ? "pro" : "free"}`],
    }));
    await mem.callTool({ name: "create_entities", arguments: { entities } });
    direct.definitions += bytes(await fs.listTools()) + bytes(await mem.listTools());
    const read = await fs.callTool({ name: "read_text_file", arguments: { path: log } });
    direct.results += bytes(read);
    const text = (read.content as Array<{ text?: string }>)[0]?.text ?? "";
    const errors = text.split("\n").filter((l) => l.includes(" ERROR "));
    if (errors.length !== errorLines) throw new Error(`bench 10: the direct read found ${errors.length} ERROR lines, not ${errorLines}`);
    direct.results += bytes(await fs.callTool({ name: "write_file", arguments: { path: summary, content: `${errors.length} errors\n` } }));
    for (let i = 0; i < ENTITIES; i++) {
      const r = await mem.callTool({ name: "open_nodes", arguments: { names: [entityName(i)] } });
      if (!JSON.stringify(r).includes(entityName(i))) throw new Error(`bench 10: open_nodes did not find ${entityName(i)}`);
      direct.results += bytes(r);
    }
  } finally {
    await fs.close().catch(() => {});
    await mem.close().catch(() => {});
  }

  // the code-mode side: the same servers behind mcpx serve
  const config = join(dir, "mcpx.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        filesystem: { ...fsServer, roots: false },
        memory: { ...memServer, env: { MEMORY_FILE_PATH: memoryEnv.MEMORY_FILE_PATH } },
      },
    }),
  );
  const serve = await connect(mcpx, ["serve", "--config", config], dir, env);
  const codeMode = { definitions: 0, answers: 0, source: 0 };
  try {
    codeMode.definitions += bytes(await serve.listTools());
    for (const query of ["read a text file", "write a file", "open entities in the knowledge graph"])
      codeMode.answers += bytes(await serve.callTool({ name: "mcpx_search", arguments: { query, limit: 3 } }));
    codeMode.answers += bytes(
      await serve.callTool({ name: "mcpx_describe", arguments: { tools: ["filesystem.read_text_file", "filesystem.write_file", "memory.open_nodes"] } }),
    );
    const source = `const LOG = ${JSON.stringify(log)}; const SUMMARY = ${JSON.stringify(summary)};\n${SOURCE}`;
    codeMode.source = Buffer.byteLength(source, "utf8");
    const r = (await serve.callTool({ name: "mcpx_exec", arguments: { source } })) as { structuredContent?: { ok?: boolean; result?: unknown } };
    const value = r.structuredContent?.result as { errors?: number; found?: number } | undefined;
    if (r.structuredContent?.ok !== true || value?.errors !== errorLines || value.found !== ENTITIES)
      throw new Error(`bench 10: mcpx_exec answered ${JSON.stringify(r).slice(0, 600)}`);
    if (!readFileSync(summary, "utf8").startsWith(`${errorLines} errors`)) throw new Error("bench 10: the summary was not written");
    codeMode.answers += bytes(r);
  } finally {
    await serve.close().catch(() => {});
  }
  return { direct, codeMode };
}
