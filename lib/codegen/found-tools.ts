// What `mcpx search`, mcpx_search and mcpx_describe answer, from the servers' visible tools: the
// ranked hits with the line a script calls each by, and the declarations of tools named SERVER.TOOL.

import { searchTools, type SearchableServer } from "../mcp/tool-search.ts";
import { resolveToolName } from "../mcp/tool-names.ts";
import { suggest } from "../util/did-you-mean.ts";
import { renderToolTypes } from "./declarations.ts";
import { callLines } from "./short-signature.ts";

export interface FoundTool {
  /** SERVER.TOOL, by the real names (what mcpx_describe and `mcpx types` take) */
  name: string;
  server: string;
  tool: string;
  score: number;
  /** how a script calls it, in one line (as `mcpx ls SERVER` prints it) */
  signature: string;
  /** the first line of its description */
  description: string;
}

/** the best `limit` tools for `query` across `servers` (config order), each with its call line */
export function foundTools(servers: readonly SearchableServer[], query: string, limit?: number): FoundTool[] {
  const lines = new Map(servers.map((s) => [s.server, callLines(s.server, s.tools)]));
  return searchTools(servers, query, limit).map((h) => ({
    name: `${h.server}.${h.tool.name}`,
    server: h.server,
    tool: h.tool.name,
    score: h.score,
    signature: lines.get(h.server)!.get(h.tool.name)!,
    description: h.tool.description?.split("\n")[0] ?? "",
  }));
}

/**
 * The server a SERVER.TOOL name starts with: a server name may itself contain dots, so the longest
 * configured name that prefixes it wins. Undefined when none does.
 */
export function serverOf(target: string, servers: readonly string[]): { server: string; tool: string } | undefined {
  const server = servers.filter((n) => target.startsWith(`${n}.`) && target.length > n.length + 1).sort((a, b) => b.length - a.length)[0];
  return server === undefined ? undefined : { server, tool: target.slice(server.length + 1) };
}

/**
 * The declarations of each named tool, in the order asked, or every name that is not a visible tool
 * (hook tools and filtered-out tools are not), each with the nearest SERVER.TOOL there is.
 * `listed`: the visible tools of every server the names start with.
 */
export function describedTools(
  targets: readonly string[],
  servers: readonly string[],
  listed: readonly SearchableServer[],
): { text: string } | { unknown: string[] } {
  const byServer = new Map(listed.map((s) => [s.server, s]));
  const every = listed.flatMap((s) => s.tools.map((t) => `${s.server}.${t.name}`));
  const unknown: string[] = [];
  const parts: string[] = [];
  for (const target of targets) {
    const at = serverOf(target, servers);
    const tools = at && byServer.get(at.server)?.tools;
    const real =
      at && tools
        ? resolveToolName(
            at.tool,
            tools.map((t) => t.name),
          )
        : undefined;
    if (at === undefined || tools === undefined || real === undefined) {
      // an unknown server's nearest is a server (its tools were never listed); an unknown tool's, a tool there is
      const why =
        at === undefined
          ? `no configured server starts it (servers: ${servers.join(", ") || "none"})${suggest(target.split(".")[0]!, servers)}`
          : `no visible tool of ${at.server} is named ${JSON.stringify(at.tool)}${suggest(target, every)}`;
      unknown.push(`${JSON.stringify(target)}: ${why}`);
      continue;
    }
    parts.push(renderToolTypes({ name: at.server, tools: [...tools] }, real));
  }
  return unknown.length ? { unknown } : { text: parts.join("\n") };
}
