// One tools/call from a script or `mcpx call`, by the name the caller used: the real tool name or its
// sanitised identifier. Lifecycle hook tools (`_` names) are refused before the server is contacted,
// with exactly the error an unknown tool gets.

import { isHookToolName, resolveToolName } from "./tool-names.ts";
import { filteredBy } from "./tool-filter.ts";
import { McpxError } from "../errors/mcpx-error.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { Pool } from "./pool.ts";
import { resultText, type CallResult, type Tool } from "./tool.ts";

export class UnknownToolError extends McpxError {
  constructor(
    readonly server: string,
    readonly tool: string,
    /** the names it could have meant, for the did-you-mean (hook tools are never among them) */
    choices: readonly string[] = [],
    /** the server's tool filter leaves it out: which key, in which file (lib/mcp/tool-filter.ts) */
    filtered?: string,
  ) {
    super(
      filtered
        ? `unknown tool "${tool}" on server "${server}": ${filtered}, so mcpx leaves it out as that file says; change the filter to use it`
        : `unknown tool "${tool}" on server "${server}"${suggest(tool, choices)}: run \`mcpx ls ${server}\` to see its tools`,
      "UNKNOWN_TOOL",
    );
  }
}

/**
 * What each requested name resolved to, per catalogue: resolving scans the whole list, a cost each
 * call of a large server would pay again. Keyed by the list itself, so a tools/list_changed, which
 * makes the pool list anew, starts an empty cache and the old one goes with the old list.
 */
const resolved = new WeakMap<Tool[], Map<string, Tool | null>>();

/** the tool a name refers to; throws UnknownToolError without starting the server for hook names */
export async function findTool(pool: Pool, server: string, requested: string): Promise<Tool> {
  if (isHookToolName(requested)) throw new UnknownToolError(server, requested);
  const tools = await pool.tools(server);
  try {
    return toolIn(server, requested, tools);
  } catch (err) {
    // a tool the server lists and its filter left out, by its name or its identifier (get_sum for get-sum)
    const real = err instanceof UnknownToolError ? resolveToolName(requested, pool.filteredOut(server)) : undefined;
    const filtered = real === undefined ? undefined : filteredBy(pool.servers[server], real);
    throw filtered ? new UnknownToolError(server, requested, [], filtered) : err;
  }
}

/**
 * findTool without waiting a turn, for a server already open and listed with the name resolved
 * before (a script's calls after its first); undefined sends the caller to findTool.
 */
export function knownTool(pool: Pool, server: string, requested: string): Tool | undefined {
  const tools = pool.listedTools(server);
  return tools && !isHookToolName(requested) ? (resolved.get(tools)?.get(requested) ?? undefined) : undefined;
}

function toolIn(server: string, requested: string, tools: Tool[]): Tool {
  let byName = resolved.get(tools);
  if (!byName) {
    byName = new Map();
    resolved.set(tools, byName);
  }
  let tool = byName.get(requested);
  if (tool === undefined) {
    tool = lookUp(requested, tools) ?? null;
    byName.set(requested, tool);
  }
  if (!tool) throw unknownTool(server, requested, tools);
  return tool;
}

/** findTool over a list already read (the daemon's catalogue): no cache, no server */
export function pickTool(server: string, requested: string, tools: readonly Tool[]): Tool {
  const tool = isHookToolName(requested) ? undefined : lookUp(requested, tools);
  if (!tool) throw isHookToolName(requested) ? new UnknownToolError(server, requested) : unknownTool(server, requested, tools);
  return tool;
}

function lookUp(requested: string, tools: readonly Tool[]): Tool | undefined {
  const real = resolveToolName(
    requested,
    tools.map((t) => t.name),
  );
  return real === undefined ? undefined : tools.find((t) => t.name === real);
}

function unknownTool(server: string, requested: string, tools: readonly Tool[]): UnknownToolError {
  return new UnknownToolError(
    server,
    requested,
    tools.map((t) => t.name).filter((n) => !isHookToolName(n)),
  );
}

/** the text of an isError result, for the ToolError message */
export function errorText(result: CallResult): string {
  return resultText(result) || "the tool reported an error";
}
