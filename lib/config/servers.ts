// The mcpServers object, in the shape Claude Desktop and Cursor use, so their configs can be
// dropped in: an entry is a stdio server (command), a Streamable HTTP server (url) or a legacy
// HTTP+SSE server ("type": "sse", or a url ending in /sse with no type).
// Strict: an unknown key, a wrong type or an ambiguous entry is an error naming the key and what is
// accepted; nothing is silently ignored. Forgiving about *which* entry: one broken entry does not
// break the file. It is kept as a BrokenServer (its ConfigError), reported once per command, and is
// the error only where it is used (docs/decisions/0009).

import { dirname, isAbsolute, resolve } from "node:path";
import type { JSONPath } from "jsonc-parser";
import * as v from "valibot";
import { once } from "../util/once.ts";
import { ConfigError } from "./errors.ts";
import { expandServer } from "./expand.ts";
import type { Env } from "./find.ts";
import { formatKeyPath, type Position } from "./jsonc.ts";
import { endsInSse, PINNABLE_PROTOCOL_VERSIONS, type BrokenServer, type ServerConfig, type ToolFilter } from "./server-config.ts";
import { closest } from "../util/did-you-mean.ts";
import { isPlainObject } from "../util/json-type.ts";

export type { BrokenServer, ServerConfig };

const STDIO_KEYS = ["type", "command", "args", "env", "cwd", "enabledTools", "disabledTools", "protocolVersion", "roots"] as const;
const HTTP_KEYS = ["type", "url", "headers", "oauth", "enabledTools", "disabledTools", "protocolVersion", "roots"] as const;
const TYPES = ["stdio", "http", "streamable-http", "sse"] as const;

const str = (what: string) => v.pipe(v.string(`must be a string: ${what}`), v.nonEmpty(`must not be empty: ${what}`));
const toolNames = () =>
  v.optional(v.array(v.string("must be a string: a tool name"), 'must be an array of tool names as the server lists them, e.g. ["echo"]'));
const protocolVersion = () =>
  v.optional(
    v.picklist(
      PINNABLE_PROTOCOL_VERSIONS,
      `must be one of ${PINNABLE_PROTOCOL_VERSIONS.map((p) => JSON.stringify(p)).join(", ")} (the protocol revision to pin; leave it out to negotiate)`,
    ),
  );
const roots = () => v.optional(v.boolean("must be true or false: false offers the server no roots (mcpx offers the run's working directory otherwise)"));
const strMap = (what: string) =>
  v.optional(v.record(v.string(), v.string('must be a string (quote numbers and booleans, e.g. "8080")'), `must be an object of ${what}`), () => ({}));

// built when an entry is first validated: a session from its note validates none, so it never pays for building it
const stdioEntry = once(() =>
  v.strictObject({
    type: v.optional(v.literal("stdio")),
    command: str('the program to start, e.g. "npx"'),
    args: v.optional(v.array(v.string("must be a string (quote numbers)"), 'must be an array of strings, e.g. ["-y", "some-server"]'), () => []),
    env: strMap("variable names to string values"),
    cwd: v.optional(str("the directory to start the server in")),
    enabledTools: toolNames(),
    disabledTools: toolNames(),
    protocolVersion: protocolVersion(),
    roots: roots(),
  }),
);

const httpEntry = once(() =>
  v.strictObject({
    type: v.optional(v.picklist(["http", "streamable-http", "sse"])),
    url: str('the Streamable HTTP endpoint, e.g. "https://example.com/mcp" (or a legacy SSE endpoint, e.g. ".../sse")'),
    headers: strMap("header names to string values"),
    oauth: v.optional(
      v.strictObject(
        {
          clientId: v.optional(str("the client_id the authorization server issued for mcpx")),
          clientMetadataUrl: v.optional(
            v.pipe(
              str("the https URL of mcpx's Client ID Metadata Document"),
              v.check(
                (s) => /^https:\/\/[^/]+\/./.test(s) || s.includes("${"),
                'must be an https:// URL with a path, e.g. "https://example.com/mcpx/client.json": the Client ID Metadata Document mcpx is known by',
              ),
            ),
          ),
          clientSecret: v.optional(
            v.pipe(
              str("the client secret, as a ${VAR} reference"),
              v.check(
                (s) => /\$\{[A-Za-z_]/.test(s.replaceAll("$${", "")),
                'must be a ${VAR} reference, e.g. "${NOTES_CLIENT_SECRET}": a secret does not belong in a config file',
              ),
            ),
          ),
        },
        "must be an object with clientId and, for a confidential client, clientSecret (a ${VAR} reference): a client registered with the " +
          "authorization server beforehand; or with clientMetadataUrl, the https URL of mcpx's Client ID Metadata Document",
      ),
    ),
    enabledTools: toolNames(),
    disabledTools: toolNames(),
    protocolVersion: protocolVersion(),
    roots: roots(),
  }),
);

export interface ServerContext {
  /** the config file, recorded as each server's origin */
  file: string;
  /** for ${VAR} expansion */
  env: Env;
  /** where a key path is written in the file, for error positions */
  locate: (path: JSONPath) => Position | undefined;
  /** the key path of the server map in the file (default ["mcpServers"]; VS Code's is ["servers"]) */
  root?: JSONPath;
  /** the tool whose file this is (an import kind, docs/decisions/0009); absent for mcpx's own files */
  imported?: string;
  /** how that file spells enabledTools/disabledTools (Codex: enabled_tools, disabled_tools), for errors */
  filterKeys?: ToolFilter["keys"];
}

/** one file's servers: those that work, and the entries that are broken (each with its error) */
export interface ParsedServers {
  servers: Record<string, ServerConfig>;
  broken: Record<string, BrokenServer>;
}

/**
 * Validates a file's mcpServers value, expands variables and resolves cwd. The map itself not being
 * an object throws ConfigError (the file is wrong); a problem inside one entry breaks that entry only.
 */
export function parseServers(value: unknown, ctx: ServerContext): ParsedServers {
  const root = ctx.root ?? ["mcpServers"];
  if (!isPlainObject(value)) {
    throw new ConfigError({
      file: ctx.file,
      ...ctx.locate(root),
      key: formatKeyPath(root),
      detail: 'must be an object of server entries, e.g. {"everything": {"command": "npx", "args": [...]}}',
    });
  }
  const out: ParsedServers = { servers: {}, broken: {} };
  for (const [name, entry] of Object.entries(value)) {
    const one = parseServerEntry(name, entry, ctx, [...root, name]);
    if ("error" in one) out.broken[name] = one;
    else out.servers[name] = one;
  }
  return out;
}

/** one entry at key path `at` of the file: the server, or why it cannot be used */
export function parseServerEntry(name: string, entry: unknown, ctx: ServerContext, base: JSONPath): ServerConfig | BrokenServer {
  const at = (...rest: JSONPath): JSONPath => [...base, ...rest];
  const fail = (path: JSONPath, detail: string): never => {
    // a mapped entry (OpenCode's "environment" became env) may name a key the file does not have:
    // then the entry's own line is the place to look
    throw new ConfigError({ file: ctx.file, ...(ctx.locate(path) ?? ctx.locate(base)), key: formatKeyPath(path), detail });
  };
  try {
    if (name === "") fail(at(), "a server needs a non-empty name");
    const raw = validateEntry(name, entry, ctx.file, at, fail, ctx.filterKeys);
    const expanded = expandServer(raw, ctx.env, (key, detail) => fail(at(...key), detail));
    const done = finish(expanded, ctx.file, at, fail, isPlainObject(entry) && entry.type !== undefined);
    return ctx.imported === undefined ? done : { ...done, imported: ctx.imported };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return { name, origin: ctx.file, ...(ctx.imported === undefined ? {} : { imported: ctx.imported }), error: err };
  }
}

/** Nearer files (later in the list) replace a farther file's server of the same name entirely, a broken one included. */
export function mergeServers(perFile: ReadonlyArray<ParsedServers>): ParsedServers {
  // Object.assign keeps the first-declared position of a replaced name, so the order is
  // deterministic: first appearance, farthest file first.
  const servers: Record<string, ServerConfig> = {};
  const broken: Record<string, BrokenServer> = {};
  for (const file of perFile) {
    for (const name of Object.keys(file.servers)) delete broken[name];
    for (const name of Object.keys(file.broken)) delete servers[name];
    Object.assign(servers, file.servers);
    Object.assign(broken, file.broken);
  }
  return { servers, broken };
}

/** the one warning a command prints about broken entries it does not use: each named, with its fix */
export function brokenWarning(broken: Readonly<Record<string, BrokenServer>>): string | undefined {
  // an entry of an untrusted file is not broken: the trust warning names its file (lib/trust/project-trust.ts)
  const list = Object.values(broken).filter((b) => !b.untrusted);
  if (list.length === 0) return undefined;
  const lines = list.map((b) => `  ${b.name}${b.imported ? ` (from ${b.imported})` : ""}: ${b.error.message}`);
  return (
    `${list.length === 1 ? "1 server entry is" : `${list.length} server entries are`} broken ` +
    `and cannot be used until fixed (everything else works):\n${lines.join("\n")}`
  );
}

type Fail = (path: JSONPath, detail: string) => never;

function validateEntry(
  name: string,
  entry: unknown,
  file: string,
  at: (...rest: JSONPath) => JSONPath,
  fail: Fail,
  filterKeys: ToolFilter["keys"] = { enabled: "enabledTools", disabled: "disabledTools" },
): ServerConfig {
  if (!isPlainObject(entry)) {
    return fail(at(), "must be an object with command (a stdio server) or url (a Streamable HTTP server)");
  }
  const kind = decideKind(entry, at, fail);
  const accepted: readonly string[] = kind === "stdio" ? STDIO_KEYS : HTTP_KEYS;
  const label = kind === "stdio" ? "a stdio server (command)" : "an http server (url)";
  for (const key of Object.keys(entry)) {
    if (accepted.includes(key)) continue;
    const other: readonly string[] = kind === "stdio" ? HTTP_KEYS : STDIO_KEYS;
    const hint = other.includes(key)
      ? `"${key}" belongs to ${kind === "stdio" ? "http servers (url)" : "stdio servers (command)"}`
      : `unknown key${suggest(key, accepted)}`;
    fail(at(key), `${hint}; ${label} accepts ${accepted.join(", ")}`);
  }
  const result = kind === "stdio" ? v.safeParse(stdioEntry(), entry) : v.safeParse(httpEntry(), entry);
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    return fail(at(...path), issue.message);
  }
  const o = result.output;
  const filter: { toolFilter?: ToolFilter } =
    o.enabledTools === undefined && o.disabledTools === undefined
      ? {}
      : {
          toolFilter: {
            ...(o.enabledTools === undefined ? {} : { enabled: o.enabledTools }),
            ...(o.disabledTools === undefined ? {} : { disabled: o.disabledTools }),
            keys: filterKeys,
          },
        };
  const pin = { ...(o.protocolVersion === undefined ? {} : { protocolVersion: o.protocolVersion }), ...(o.roots === false ? { roots: false as const } : {}) };
  if ("command" in o) {
    const base = { name, kind: "stdio" as const, command: o.command, args: o.args, env: o.env, origin: file, ...filter, ...pin };
    return o.cwd === undefined ? base : { ...base, cwd: o.cwd };
  }
  if (o.oauth && (o.oauth.clientId === undefined) === (o.oauth.clientMetadataUrl === undefined))
    return fail(at("oauth"), "needs clientId (a client registered beforehand) or clientMetadataUrl (a Client ID Metadata Document), not both nor neither");
  if (o.oauth?.clientSecret !== undefined && o.oauth.clientId === undefined)
    return fail(at("oauth", "clientSecret"), "goes with clientId: a Client ID Metadata Document client has no secret");
  if (o.oauth && Object.keys(o.headers).some((h) => h.toLowerCase() === "authorization"))
    return fail(at("oauth"), "is given with an Authorization header: a static token and an OAuth login exclude each other; keep one");
  return {
    name,
    kind: "http",
    url: o.url,
    headers: o.headers,
    origin: file,
    ...(o.type === "sse" ? { transport: "sse" as const } : {}),
    ...(o.oauth ? { oauth: o.oauth } : {}),
    ...filter,
    ...pin,
  };
}

// Decides stdio vs http from command/url, checking "type" agrees; the failure cases are the
// configs copied from other tools (SSE servers, both keys) that would otherwise half-work.
function decideKind(entry: Record<string, unknown>, at: (...rest: JSONPath) => JSONPath, fail: Fail): "stdio" | "http" {
  const type = entry.type;
  if (type !== undefined && !(TYPES as readonly unknown[]).includes(type)) {
    fail(at("type"), `must be one of ${TYPES.join(", ")}, got ${JSON.stringify(type)}`);
  }
  const hasCommand = "command" in entry;
  const hasUrl = "url" in entry;
  if (hasCommand && hasUrl) {
    fail(at(), "has both command and url: keep command for a server mcpx starts (stdio), or url for one it connects to (http)");
  }
  const wantsStdio = type === "stdio";
  const wantsHttp = type === "http" || type === "streamable-http" || type === "sse";
  if (wantsStdio && hasUrl) fail(at("type"), 'is "stdio" but the entry has url: use "type": "http", or replace url with command');
  if (wantsHttp && hasCommand) fail(at("type"), `is ${JSON.stringify(type)} but the entry has command: use "type": "stdio", or replace command with url`);
  if (wantsStdio && !hasCommand) fail(at("command"), 'is missing: a stdio server needs command, the program to start, e.g. "npx"');
  if (wantsHttp && !hasUrl)
    fail(at("url"), 'is missing: an http server needs url, its Streamable HTTP endpoint, e.g. "https://example.com/mcp" (an sse server: its SSE endpoint)');
  if (hasCommand) return "stdio";
  if (hasUrl) return "http";
  return fail(at(), "needs command (a program mcpx starts, stdio) or url (a Streamable HTTP endpoint)");
}

// After expansion, because a url or cwd is often built from variables ("${BASE}/mcp").
// An untyped url is SSE when it ends in /sse, decided on the expanded url ("${BASE}/sse").
function finish(server: ServerConfig, file: string, at: (...rest: JSONPath) => JSONPath, fail: Fail, typed: boolean): ServerConfig {
  if (server.kind === "http") {
    let url: URL | undefined;
    try {
      url = new URL(server.url);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      fail(at("url"), `${JSON.stringify(server.url)} is not an http:// or https:// URL`);
    }
    return !typed && endsInSse(server.url) ? { ...server, transport: "sse" } : server;
  }
  if (server.command === "") fail(at("command"), "is empty after expanding variables: set the variable or give a default");
  if (server.cwd === undefined) return server;
  // "~" is a shell feature; resolving it against the file's directory would silently pick ./~
  if (server.cwd.startsWith("~")) fail(at("cwd"), 'a leading "~" is not expanded: write "${HOME}/…" instead');
  return { ...server, cwd: isAbsolute(server.cwd) ? server.cwd : resolve(dirname(file), server.cwd) };
}

// A did-you-mean for typos like "agrs" or "hedaers", quoted as the key is in the file.
function suggest(key: string, accepted: readonly string[]): string {
  const near = closest(key, accepted);
  return near === undefined ? "" : ` (did you mean "${near}"?)`;
}
