// A hook whose `when` names nothing that exists loads fine and never fires: a guard that silently
// guards nothing. These pure checks find such hooks, so the engine can say so when it
// opens (servers) and when a server's tool list is first read (tools). They warn rather than refuse:
// a user-wide config may rightly guard a server that only some projects configure, and refusing
// would make that config unusable everywhere else (decision 0016). Both spellings of a name count,
// the MCP name (`my-srv`) and the identifier scripts use (`my_srv`), as whenMatches accepts both.

import { whenMatches } from "../events/match.ts";
import { toIdentifier } from "../mcp/tool-names.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { Hook } from "./hook.ts";

const GLOB_CHARS = /[*?[{]/;

function describe(hook: Hook): string {
  return `hook ${hook.name} (${hook.origin})`;
}

/** for each hook whose when.server matches no configured server, why it can never fire */
export function unmatchedServers(hooks: readonly Hook[], servers: readonly string[]): string[] {
  const out: string[] = [];
  for (const hook of hooks) {
    const pattern = hook.when.server;
    if (pattern === undefined || servers.some((s) => whenMatches({ server: pattern }, { server: s }))) continue;
    const near = GLOB_CHARS.test(pattern) ? "" : suggest(pattern, [...servers, ...servers.map(toIdentifier)]);
    out.push(
      `${describe(hook)}: when.server "${pattern}" names no configured server${near}, so it never fires ` +
        `(configured: ${servers.length ? servers.join(", ") : "none"})`,
    );
  }
  return out;
}

/** for each hook whose when.server matches `server` but whose when.tool matches none of its tools, why it never fires there */
export function unmatchedTools(hooks: readonly Hook[], server: string, tools: readonly string[]): string[] {
  const out: string[] = [];
  for (const hook of hooks) {
    const { server: s, tool: pattern } = hook.when;
    if (pattern === undefined || s === undefined || !whenMatches({ server: s }, { server })) continue;
    if (tools.some((t) => whenMatches({ tool: pattern }, { tool: t }))) continue;
    const near = GLOB_CHARS.test(pattern) ? "" : suggest(pattern, [...tools, ...tools.map(toIdentifier)]);
    out.push(`${describe(hook)}: when.tool "${pattern}" names no tool server ${server} lists${near}, so it never fires there`);
  }
  return out;
}
