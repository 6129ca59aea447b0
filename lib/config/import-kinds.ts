// The MCP server lists other tools keep, read where they are (docs/decisions/0009): for each kind,
// which files, where in each file the server map is, and how one of its entries becomes an mcpServers
// entry mcpx validates like its own. Pure: paths in, plain values out; reading is imports.ts's job.

import { join } from "node:path";
import type { JSONPath } from "jsonc-parser";
import { ancestors } from "../paths/ancestors.ts";
import { isPlainObject } from "../util/json-type.ts";
import type { Env } from "./find.ts";

/** every kind, in precedence order: on a name clash between two imports the earlier kind wins */
export const IMPORT_KINDS = ["claude-code", "cursor", "vscode", "windsurf", "opencode", "codex", "claude-desktop"] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** one place a kind keeps servers: a file, and the key path of its server map in that file */
export interface ImportSource {
  kind: ImportKind;
  path: string;
  format: "json" | "toml";
  /** key path of the server map, e.g. ["mcpServers"] or ["projects", "/abs/dir", "mcpServers"] */
  root: JSONPath;
  /** the project directory the file belongs to (${workspaceFolder}); the cwd for user-level files */
  workspace: string;
  /**
   * a file at the tool's fixed place for the user (~/.claude.json, ~/.cursor/mcp.json, …), which mcpx
   * trusts as the user's own; false: a project's file, found walking up (docs/decisions/0015)
   */
  user: boolean;
}

/** what one foreign entry maps to */
export type Mapped =
  /** an mcpServers-shaped entry for parseServerEntry; `ignored`: keys mcpx has no use for, dropped */
  | { entry: Record<string, unknown>; ignored: string[] }
  /** switched off in its own tool: not imported */
  | { disabled: true }
  /** cannot be used by mcpx: why, and what to do */
  | { problem: string; key?: JSONPath };

export interface SourceContext {
  cwd: string;
  env: Env;
  platform: NodeJS.Platform;
}

/** The files each kind reads, most specific first (within a kind, an earlier source wins a clash). */
export function importSources(kind: ImportKind, ctx: SourceContext): ImportSource[] {
  const home = ctx.env.HOME;
  const up = ancestors(ctx.cwd);
  const inProject = (rel: string, root: JSONPath, format: "json" | "toml" = "json") =>
    up.map((dir) => ({ kind, path: join(dir, rel), format, root, workspace: dir, user: false }));
  const atHome = (rel: string, root: JSONPath, format: "json" | "toml" = "json"): ImportSource[] =>
    home ? [{ kind, path: join(home, rel), format, root, workspace: ctx.cwd, user: true }] : [];
  const xdgConfig = ctx.env.XDG_CONFIG_HOME || (home ? join(home, ".config") : undefined);
  switch (kind) {
    case "claude-code":
      // Claude Code's own order: local (~/.claude.json per project) > project (.mcp.json) > user
      return [
        ...(home
          ? up.map((dir) => ({
              kind,
              path: join(home, ".claude.json"),
              format: "json" as const,
              root: ["projects", dir, "mcpServers"],
              workspace: dir,
              user: true,
            }))
          : []),
        ...inProject(".mcp.json", ["mcpServers"]),
        ...atHome(".claude.json", ["mcpServers"]),
      ];
    case "cursor":
      return [...inProject(join(".cursor", "mcp.json"), ["mcpServers"]), ...atHome(join(".cursor", "mcp.json"), ["mcpServers"])];
    case "vscode":
      return inProject(join(".vscode", "mcp.json"), ["servers"]);
    case "windsurf":
      return atHome(join(".codeium", "windsurf", "mcp_config.json"), ["mcpServers"]);
    case "opencode":
      return [
        ...up.flatMap((dir) =>
          ["opencode.json", "opencode.jsonc"].map((f) => ({ kind, path: join(dir, f), format: "json" as const, root: ["mcp"], workspace: dir, user: false })),
        ),
        ...(xdgConfig
          ? ["opencode.json", "opencode.jsonc"].map((f) => ({
              kind,
              path: join(xdgConfig, "opencode", f),
              format: "json" as const,
              root: ["mcp"],
              workspace: ctx.cwd,
              user: true,
            }))
          : []),
      ];
    case "codex": {
      const codexHome = ctx.env.CODEX_HOME || (home ? join(home, ".codex") : undefined);
      return codexHome ? [{ kind, path: join(codexHome, "config.toml"), format: "toml", root: ["mcp_servers"], workspace: ctx.cwd, user: true }] : [];
    }
    case "claude-desktop": {
      if (!home) return [];
      const dir = ctx.platform === "darwin" ? join(home, "Library", "Application Support", "Claude") : join(xdgConfig ?? join(home, ".config"), "Claude");
      return [{ kind, path: join(dir, "claude_desktop_config.json"), format: "json", root: ["mcpServers"], workspace: ctx.cwd, user: true }];
    }
  }
}

/** the keys of an mcpServers entry, which the mappers pass through */
const MCPX_KEYS = ["type", "command", "args", "env", "cwd", "url", "headers", "enabledTools", "disabledTools"];

/** how a kind's file spells mcpx's enabledTools/disabledTools, for the error a filtered tool's call gets */
export function filterKeysOf(kind: ImportKind): { enabled: string; disabled: string } {
  return kind === "codex" ? { enabled: "enabled_tools", disabled: "disabled_tools" } : { enabled: "enabledTools", disabled: "disabledTools" };
}

/**
 * The server map at `root` of a parsed file; OpenCode's newer layout nests it one level deeper
 * (`mcp.servers`). Undefined when the file has none.
 */
export function serverMap(source: ImportSource, doc: unknown): { root: JSONPath; map: unknown } | undefined {
  let node: unknown = doc;
  for (const key of source.root) {
    if (!isPlainObject(node)) return undefined;
    node = node[key as string];
  }
  if (node === undefined) return undefined;
  if (source.kind === "opencode" && isPlainObject(node) && isPlainObject(node.servers) && !("type" in node.servers)) {
    return { root: [...source.root, "servers"], map: node.servers };
  }
  return { root: source.root, map: node };
}

/** one entry of `kind`'s server map, mapped to an mcpServers entry (or why it is not one) */
export function mapEntry(source: ImportSource, raw: unknown, env: Env): Mapped {
  if (!isPlainObject(raw)) return { problem: "is not an object, so it is no server entry" };
  if (raw.disabled === true || raw.enabled === false) return { disabled: true };
  switch (source.kind) {
    case "claude-code":
      // Claude Code expands ${VAR} and ${VAR:-default} exactly as mcpx does
      return pick(raw, ["disabled"]);
    case "claude-desktop":
      return literal(pick(raw, ["disabled"]));
    case "cursor":
    case "vscode":
    case "windsurf": {
      if ("envFile" in raw)
        return { problem: `uses envFile, which mcpx does not read: put the variables in "env" (or in mcpx's own config with \${VAR})`, key: ["envFile"] };
      const entry = source.kind === "windsurf" && "serverUrl" in raw && !("url" in raw) ? { ...raw, url: raw.serverUrl, serverUrl: undefined } : raw;
      return editorVariables(pick(entry, ["disabled", "serverUrl"]), source, env);
    }
    case "opencode":
      return openCode(raw);
    case "codex":
      return codex(raw);
  }
}

// The keys mcpx understands, and every other key listed as ignored (reported by `mcpx config import`).
function pick(raw: Record<string, unknown>, quiet: string[]): Mapped {
  const entry: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || quiet.includes(key)) continue;
    if (MCPX_KEYS.includes(key)) entry[key] = value;
    else ignored.push(key);
  }
  return { entry, ignored };
}

/** every string of an entry, mapped (args, env and header values, command, url, cwd) */
function mapStrings(mapped: Mapped, f: (s: string, key: JSONPath) => string): Mapped {
  if (!("entry" in mapped)) return mapped;
  const walk = (v: unknown, key: JSONPath): unknown => {
    if (typeof v === "string") return f(v, key);
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...key, i]));
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...key, k])]));
    return v;
  };
  return { ...mapped, entry: walk(mapped.entry, []) as Record<string, unknown> };
}

/** a tool that does not expand variables: a "${" in its file is literal, so it is escaped for mcpx's expander */
function literal(mapped: Mapped): Mapped {
  return mapStrings(mapped, (s) => s.replaceAll("${", "$${"));
}

class Unresolvable extends Error {
  constructor(
    message: string,
    readonly key: JSONPath,
  ) {
    super(message);
  }
}

// VS Code, Cursor and Windsurf write ${env:NAME}, ${userHome}, ${workspaceFolder}; VS Code also
// ${input:ID}, which it prompts for. mcpx cannot prompt, so such an entry is broken, with the fix.
function editorVariables(mapped: Mapped, source: ImportSource, env: Env): Mapped {
  try {
    return mapStrings(mapped, (s, key) =>
      s.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
        const env_ = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
        if (env_) return `\${${env_[1]}}`;
        if (inner === "userHome") return (env.HOME ?? "").replaceAll("${", "$${");
        if (inner === "workspaceFolder") return source.workspace.replaceAll("${", "$${");
        if (inner === "workspaceFolderBasename") return source.workspace.split("/").pop() ?? "";
        if (inner === "pathSeparator" || inner === "/") return "/";
        if (inner.startsWith("input:")) {
          throw new Unresolvable(
            `uses ${whole}, which ${source.kind === "vscode" ? "VS Code" : source.kind} prompts for ` +
              `and mcpx cannot: write the value as \${VARIABLE} in mcpx's own config (mcpx config ` +
              `import ${source.kind}, then edit .mcpx.json) and set the variable`,
            key,
          );
        }
        if (inner.includes(":"))
          throw new Unresolvable(`uses ${whole}, which only ${source.kind} can resolve: replace it with the value or a \${VARIABLE} in mcpx's own config`, key);
        return `$${whole}`;
      }),
    );
  } catch (err) {
    if (err instanceof Unresolvable) return { problem: err.message, key: err.key };
    throw err;
  }
}

// OpenCode: {"type": "local", "command": [argv…], "environment": {…}} or {"type": "remote", "url", "headers"};
// {env:NAME} is its variable syntax; {file:path} reads a file, which mcpx does not.
function openCode(raw: Record<string, unknown>): Mapped {
  const quiet = ["type", "enabled", "disabled"];
  let mapped: Mapped;
  if (raw.type === "local") {
    const command = raw.command;
    if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === "string")) {
      return { problem: 'a local OpenCode server needs "command", a non-empty array of strings (the program and its arguments)', key: ["command"] };
    }
    const { command: _c, environment, ...rest } = raw;
    const base = pick(rest, quiet) as { entry: Record<string, unknown>; ignored: string[] };
    mapped = {
      entry: { ...base.entry, command: command[0], args: command.slice(1), ...(environment === undefined ? {} : { env: environment }) },
      ignored: base.ignored,
    };
  } else if (raw.type === "remote") {
    mapped = pick(raw, quiet);
  } else {
    return { problem: `has type ${JSON.stringify(raw.type)}: OpenCode servers are "local" (command) or "remote" (url)`, key: ["type"] };
  }
  try {
    return mapStrings(literal(mapped), (s, key) =>
      s.replace(/\{(env|file):([^}]*)\}/g, (whole, how: string, name: string) => {
        if (how === "file")
          throw new Unresolvable(
            `uses ${whole}, which reads a file; mcpx does not: put the value in an environment variable and write \${NAME} in mcpx's own config`,
            key,
          );
        return `\${${name}}`;
      }),
    );
  } catch (err) {
    if (err instanceof Unresolvable) return { problem: err.message, key: err.key };
    throw err;
  }
}

// Codex: [mcp_servers.NAME] with command/args/env/cwd (stdio) or url with http_headers,
// env_http_headers ({HEADER = "VAR"}) and bearer_token_env_var. Codex does not expand variables.
// enabled_tools/disabled_tools are its tool filters, mcpx's enabledTools/disabledTools.
function codex(raw: Record<string, unknown>): Mapped {
  const { http_headers, env_http_headers, bearer_token_env_var, enabled_tools, disabled_tools, ...rest } = raw;
  const filters = {
    ...(enabled_tools === undefined ? {} : { enabledTools: enabled_tools }),
    ...(disabled_tools === undefined ? {} : { disabledTools: disabled_tools }),
  };
  const base = literal(pick({ ...rest, ...filters }, ["enabled"]));
  if (!("entry" in base)) return base;
  const headers: Record<string, unknown> = { ...(isPlainObject(http_headers) ? http_headers : {}) };
  if (http_headers !== undefined && !isPlainObject(http_headers))
    return { problem: "http_headers must be a table of header names to values", key: ["http_headers"] };
  for (const [k, v] of Object.entries(headers)) if (typeof v === "string") headers[k] = v.replaceAll("${", "$${");
  if (env_http_headers !== undefined) {
    if (!isPlainObject(env_http_headers)) return { problem: "env_http_headers must be a table of header names to variable names", key: ["env_http_headers"] };
    for (const [k, v] of Object.entries(env_http_headers)) headers[k] = `\${${String(v)}}`;
  }
  if (bearer_token_env_var !== undefined) headers.Authorization = `Bearer \${${String(bearer_token_env_var)}}`;
  return Object.keys(headers).length ? { ...base, entry: { ...base.entry, headers } } : base;
}

/** where `[mcp_servers.NAME]` is written in a TOML file (smol-toml gives no positions): its line */
export function locateTomlTable(text: string, root: JSONPath, name: string): { line: number; column: number } | undefined {
  const quoted = (s: string) => `(?:${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|"${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}")`;
  const re = new RegExp(`^\\s*\\[\\s*${root.map((r) => quoted(String(r))).join("\\s*\\.\\s*")}\\s*\\.\\s*${quoted(name)}\\s*\\]`);
  const lines = text.split("\n");
  const i = lines.findIndex((l) => re.test(l));
  return i < 0 ? undefined : { line: i + 1, column: 1 };
}
