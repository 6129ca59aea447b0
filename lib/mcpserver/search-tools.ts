// mcpx_search and mcpx_describe: the few tools a task needs, found by words across every server,
// and just their declarations, so an agent need not read every server's whole namespace first.
// Both see only visible tools (hook tools and those a server's tool filter leaves out never appear).

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type * as v from "valibot";
import { describedTools, foundTools, serverOf } from "../codegen/found-tools.ts";
import type { SearchableServer } from "../mcp/tool-search.ts";
import type { Pool } from "../mcp/pool.ts";
import { McpDescribeArgsSchema, McpSearchArgsSchema, parseToolArgs } from "./schemas.ts";

/** each server's visible tools, listed concurrently and kept in config order; a server that fails is named with why */
async function listEach(pool: Pool, names: readonly string[]): Promise<{ listed: SearchableServer[]; failed: Array<{ server: string; error: string }> }> {
  const rows = await Promise.all(
    names.map(async (server) => {
      try {
        return { server, tools: await pool.visibleTools(server) };
      } catch (e) {
        return { server, error: (e as Error).message };
      }
    }),
  );
  return {
    listed: rows.flatMap((r) => ("tools" in r ? [{ server: r.server, tools: r.tools! }] : [])),
    failed: rows.flatMap((r) => ("error" in r ? [{ server: r.server, error: r.error! }] : [])),
  };
}

/** mcpx_search over the pool's servers (tools.ts hands it the engine's pool) */
export async function searchTool(args: unknown, pool: Pool): Promise<CallToolResult> {
  const parsed = parseToolArgs("mcpx_search", McpSearchArgsSchema, args);
  if (!parsed.ok) return fail(parsed.message);
  const { query, limit } = parsed.value as v.InferOutput<typeof McpSearchArgsSchema>;
  const { listed, failed } = await listEach(pool, pool.names());
  const tools = foundTools(listed, query, limit);
  const lines = tools.map((t) => `${t.name}\t${t.signature}\t${t.description}`);
  // a server that could not list its tools is said, not hidden: its tools may be the ones wanted
  for (const f of failed) lines.push(`(${f.server} was not searched: ${f.error})`);
  const none = `no tool matches ${JSON.stringify(query)}: try other words, or mcpx_namespaces and mcpx_types to browse`;
  return {
    content: [{ type: "text", text: tools.length || failed.length ? lines.join("\n") : none }],
    structuredContent: { tools, ...(failed.length ? { failed } : {}) },
  };
}

/** mcpx_describe of tools of the pool's servers */
export async function describeTool(args: unknown, pool: Pool): Promise<CallToolResult> {
  const parsed = parseToolArgs("mcpx_describe", McpDescribeArgsSchema, args);
  if (!parsed.ok) return fail(parsed.message);
  const { tools: targets } = parsed.value as v.InferOutput<typeof McpDescribeArgsSchema>;
  const names = pool.names();
  // only the servers named are started; a did-you-mean then looks among their tools
  const wanted = [...new Set(targets.map((t) => serverOf(t, names)?.server).filter((s) => s !== undefined))];
  const { listed, failed } = await listEach(pool, wanted);
  if (failed.length) return fail(failed.map((f) => `${f.server}: ${f.error}`).join("\n"));
  const answer = describedTools(targets, names, listed);
  if ("unknown" in answer) return fail(`unknown tool${answer.unknown.length > 1 ? "s" : ""}: ${answer.unknown.join("; ")} (mcpx_search finds tools by words)`);
  return { content: [{ type: "text", text: answer.text }] };
}

function fail(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}
