// The tools mcpx serves, in the order every door lists them (lib/mcpserver/tools.ts): written out
// here once, so that a tool added, dropped or moved fails each door's listing test.

export const SERVED_TOOL_NAMES = [
  "mcpx_exec",
  "mcpx_call",
  "mcpx_namespaces",
  "mcpx_types",
  "mcpx_search",
  "mcpx_describe",
  "mcpx_save_skill",
  "_Stop",
  "_PostCompact",
];
