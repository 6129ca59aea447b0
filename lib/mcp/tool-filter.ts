// A server's tool filter (enabledTools/disabledTools, or the spelling of the tool it was imported from):
// the pool keeps only the tools it lets through, so they are not listed, typed or callable anywhere,
// and a call of one that it turned off gets the unknown-tool error saying which filter did it.
// Lifecycle hook tools (`_` names) are mcpx's own machinery, which another tool's filter does not know: never filtered.

import type { ServerConfig } from "../config/server-config.ts";
import { isHookToolName } from "./tool-names.ts";
import type { Tool } from "./tool.ts";

export function filterTools(cfg: ServerConfig | undefined, tools: Tool[]): Tool[] {
  const f = cfg?.toolFilter;
  return f ? tools.filter((t) => isHookToolName(t.name) || filteredBy(cfg, t.name) === undefined) : tools;
}

/** why the server's filter leaves `tool` out (naming the key and its file), or undefined when it does not */
export function filteredBy(cfg: ServerConfig | undefined, tool: string): string | undefined {
  const f = cfg?.toolFilter;
  if (!f) return undefined;
  if (f.disabled?.includes(tool)) return `${f.keys.disabled} in ${cfg.origin} turns it off`;
  if (f.enabled && !f.enabled.includes(tool)) return `it is not in ${f.keys.enabled} in ${cfg.origin}`;
  return undefined;
}
