// MCP_HOOK_SERVERS: which upstream servers may have their `_` hook tools invoked (design §5, seed
// 000). Off by default: a server's hooks run only when the operator names it, or says "*".

export type HookServers = { all: true } | { all: false; names: string[] };

/**
 * unset, empty or blank → none; exactly "*" (after trimming) → all; otherwise a comma list, each
 * item trimmed and empty items dropped. "*" inside a list is a literal name, so "*,foo" allows a
 * server called "*" and foo, not everything: widening to all must be spelled on its own.
 */
export function parseHookServers(value: string | undefined): HookServers {
  const t = (value ?? "").trim();
  if (t === "*") return { all: true };
  const names = t
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return { all: false, names: [...new Set(names)] };
}

export function isAllowed(list: HookServers, server: string): boolean {
  return list.all || list.names.includes(server);
}
