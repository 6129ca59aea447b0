// A server's tools/list: every page read as it came (its schemas unchecked: a tool's outputSchema is
// compiled when it is first called), checked only for what mcpx reads of each tool, and listed once
// per connection until the server says the list changed.

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { isPlainObject } from "../util/json-type.ts";
import { trace } from "../util/trace.ts";
import { PASS_THROUGH, type Connection } from "./connection.ts";
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { modernClients, modernToolList } from "./modern-tools.ts";
import type { Tool } from "./tool.ts";
import { UpstreamError } from "./upstream-error.ts";

/** the connection's tool list, listed once until tools/list_changed; `listed` holds it once it has arrived */
export function listingOf(conn: Connection, list: () => Promise<Tool[]>): Promise<Tool[]> {
  if (!conn.tools) {
    const listing = list();
    conn.tools = listing;
    // a failed list is its callers' to report; this only keeps a list that arrived (and is still current)
    listing.then(
      (tools) => {
        // a list answered after a tools/list_changed is still the newest word on which tools are tasks
        conn.taskTools = taskToolsOf(tools);
        if (conn.tools === listing) conn.listed = tools;
      },
      () => {},
    );
  }
  return conn.tools;
}

/** the tools a list says must be called as tasks (execution.taskSupport "required": lib/mcp/task-call.ts) */
function taskToolsOf(tools: Tool[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const t of tools) if ((t as { execution?: { taskSupport?: unknown } }).execution?.taskSupport === "required") names.add(t.name);
  return names;
}

/** every page of the server's tools/list, in order */
export async function listTools(server: string, client: Client, timeoutMs: number): Promise<Tool[]> {
  if (modernClients.has(client)) return toolsOfPage(server, { tools: await modernToolList(client as unknown as V2Client, timeoutMs) });
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method: "tools/list", params: cursor ? { cursor } : undefined }, PASS_THROUGH as never, {
      timeout: timeoutMs,
    })) as unknown;
    tools.push(...toolsOfPage(server, page));
    cursor = (page as { nextCursor?: unknown }).nextCursor as string | undefined;
    if (cursor !== undefined && typeof cursor !== "string")
      throw new UpstreamError(`server "${server}" answered tools/list with a nextCursor that is not a string`, server, "UPSTREAM_ERROR");
  } while (cursor);
  trace(`${server}: tools listed`);
  return tools;
}

/** a tools/list page's tools, checked only for what mcpx reads of each: a string name (a schema is read when it is used) */
function toolsOfPage(server: string, page: unknown): Tool[] {
  const tools = (page as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools) || !tools.every((t) => isPlainObject(t) && typeof t.name === "string")) {
    throw new UpstreamError(
      `server "${server}" answered tools/list with something that is not a list of tools ({name, inputSchema, …})`,
      server,
      "UPSTREAM_ERROR",
    );
  }
  return tools as Tool[];
}
