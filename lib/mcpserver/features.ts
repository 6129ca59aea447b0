// The upstream servers' resources and prompts, offered by mcpx serve and the daemon's /mcp under
// names two servers cannot share (docs/mcpserver.md): a resource's URI is wrapped as
// mcpx://SERVER/ENCODED-URI (the upstream URI percent-encoded whole, so any scheme survives), a
// template's the same with its {…} expressions kept for the client to fill, and a prompt is named
// SERVER__NAME. A read or a get passes the resource.read or prompt.get point of the gate, as a
// script's does (lib/exec/gated-feature.ts).

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Frame } from "../exec/frames.ts";
import { featureThroughGate } from "../exec/gated-feature.ts";
import type { Gate } from "../hooks/types.ts";
import type { FeatureOp, ListMethod, Prompt, Resource, ResourceTemplate } from "../mcp/server-features.ts";
import type { ServeDeps } from "./tools.ts";

const SCHEME = "mcpx://";
const PROMPT_SEPARATOR = "__";

/** mcpx://SERVER/ENCODED-URI */
function wrapUri(server: string, uri: string): string {
  return `${SCHEME}${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/** a template wrapped as its URIs are, its {…} expressions left as they are so that the client still fills them */
function wrapTemplate(server: string, template: string): string {
  const parts = template.split(/(\{[^}]*\})/);
  return `${SCHEME}${encodeURIComponent(server)}/${parts.map((p) => (p.startsWith("{") ? p : encodeURIComponent(p))).join("")}`;
}

/** the server and upstream URI of a wrapped URI; a URI mcpx did not wrap is the client's mistake, said with the form it takes */
function unwrapUri(uri: string, servers: readonly string[]): { server: string; uri: string } {
  const bad = (why: string) =>
    new McpError(ErrorCode.InvalidParams, `${JSON.stringify(uri)} ${why}: mcpx's resources are mcpx://SERVER/ENCODED-URI, as resources/list gives them`);
  if (!uri.startsWith(SCHEME)) throw bad("is not an mcpx:// URI");
  const rest = uri.slice(SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash < 0) throw bad("names no resource");
  let server: string;
  let inner: string;
  try {
    server = decodeURIComponent(rest.slice(0, slash));
    inner = decodeURIComponent(rest.slice(slash + 1));
  } catch {
    throw bad("is not percent-encoded");
  }
  if (!servers.includes(server)) throw bad(`names no configured server ("${server}"; configured: ${servers.join(", ") || "none"})`);
  return { server, uri: inner };
}

/** the server and prompt a SERVER__NAME names: the longest configured server name that prefixes it */
function unwrapPrompt(name: string, servers: readonly string[]): { server: string; name: string } {
  const server = servers.filter((s) => name.startsWith(s + PROMPT_SEPARATOR)).sort((a, b) => b.length - a.length)[0];
  if (server === undefined)
    throw new McpError(
      ErrorCode.InvalidParams,
      `prompt ${JSON.stringify(name)} names no configured server: mcpx's prompts are SERVER__NAME, as prompts/list gives them`,
    );
  return { server, name: name.slice(server.length + PROMPT_SEPARATOR.length) };
}

/** registers the four list handlers and the two gated ones on a served connection */
export function serveFeatures(
  server: Server,
  deps: ServeDeps,
  gateOf: (extra: Parameters<Parameters<Server["setRequestHandler"]>[1]>[1]) => Gate,
  log: (f: Frame) => void,
): void {
  const pool = deps.engine.pool;
  // every server's list, in config order; a server that cannot start or list is left out (and said), not the whole list failed
  const everyList = async <T>(method: ListMethod, map: (server: string, item: T) => unknown): Promise<unknown[]> => {
    const lists = await Promise.all(
      pool.names().map(async (name) => {
        try {
          return ((await pool.list(name, method)) as T[]).map((item) => map(name, item));
        } catch (e) {
          deps.session.log("warn", `${method} left out server ${name}: ${(e as Error).message}`);
          return [];
        }
      }),
    );
    return lists.flat();
  };
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await everyList<Resource>("resources/list", (s, r) => ({
      ...r,
      uri: wrapUri(s, r.uri),
      name: `${s}${PROMPT_SEPARATOR}${r.name ?? r.uri}`,
    }))) as never,
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: (await everyList<ResourceTemplate>("resources/templates/list", (s, t) => ({
      ...t,
      uriTemplate: wrapTemplate(s, t.uriTemplate),
      name: `${s}${PROMPT_SEPARATOR}${t.name ?? t.uriTemplate}`,
    }))) as never,
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await everyList<Prompt>("prompts/list", (s, p) => ({ ...p, name: `${s}${PROMPT_SEPARATOR}${p.name}` }))) as never,
  }));
  const gated = async (op: FeatureOp, upstream: { server: string; target: string }, args: Record<string, string>, gate: Gate) => {
    await deps.engine.ready;
    const answer = await featureThroughGate(deps.engine, gate, { op, ...upstream, args }, { push: log });
    if (!answer.ok) throw new McpError(ErrorCode.InternalError, answer.error.message);
    return answer.value as never;
  };
  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) => {
    const { server: name, uri } = unwrapUri(req.params.uri, pool.names());
    return gated("resource.read", { server: name, target: uri }, {}, gateOf(extra));
  });
  server.setRequestHandler(GetPromptRequestSchema, (req, extra) => {
    const { server: name, name: prompt } = unwrapPrompt(req.params.name, pool.names());
    return gated("prompt.get", { server: name, target: prompt }, req.params.arguments ?? {}, gateOf(extra));
  });
}
