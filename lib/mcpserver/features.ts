// The upstream servers' resources and prompts, offered by mcpx serve and the daemon's /mcp under
// names two servers cannot share (docs/mcpserver.md): a resource's URI is wrapped as
// mcpx://SERVER/ENCODED-URI (the upstream URI percent-encoded whole, so any scheme survives), a
// template's the same with its {…} expressions kept for the client to fill, and a prompt is named
// SERVER__NAME. A read or a get passes the resource.read or prompt.get point of the gate, as a
// script's does (lib/exec/gated-feature.ts). It also reads the artifacts an mcpx_exec answer links,
// mcpx:artifact/ID (artifact-content.ts), for the session whose run made them. An McpError thrown
// here is the client's mistake; both eras' servers answer it with its code (they read `code` off
// whatever a handler throws).

import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Frame } from "../exec/frames.ts";
import { featureThroughGate } from "../exec/gated-feature.ts";
import type { Gate } from "../hooks/types.ts";
import type { FeatureOp, ListMethod, Prompt, Resource, ResourceTemplate } from "../mcp/server-features.ts";
import type { ServeDeps } from "./tools.ts";
import { readFileSync } from "node:fs";
import type { AgentSession } from "./agent-session.ts";
import { artifactContents, isArtifactLink } from "./artifact-content.ts";

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
  // the URI in `data` too, as the spec asks of a resource not found (a client need not parse the message)
  const bad = (why: string) =>
    new McpError(
      ErrorCode.InvalidParams,
      `${JSON.stringify(uri)} ${why}: mcpx's resources are mcpx://SERVER/ENCODED-URI, as resources/list gives them` +
        " (and mcpx:artifact/ID, as an mcpx_exec answer links an artifact)",
      { uri },
    );
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

/** the upstream resources and prompts as one served connection answers for them, for either era's server */
export interface FeatureHandlers {
  listResources(): Promise<{ resources: never }>;
  listResourceTemplates(): Promise<{ resourceTemplates: never }>;
  listPrompts(): Promise<{ prompts: never }>;
  /** through the resource.read point of `gate` */
  readResource(params: { uri: string }, gate: Gate): Promise<never>;
  /** through the prompt.get point of `gate` */
  getPrompt(params: { name: string; arguments?: Record<string, string> }, gate: Gate): Promise<never>;
}

/** the four list handlers and the two gated ones of a served connection */
export function featureHandlers(deps: ServeDeps, log: (f: Frame) => void): FeatureHandlers {
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
  const gated = async (op: FeatureOp, upstream: { server: string; target: string }, args: Record<string, string>, gate: Gate) => {
    await deps.engine.ready;
    const answer = await featureThroughGate(deps.engine, gate, { op, ...upstream, args }, { push: log });
    if (!answer.ok) throw new McpError(ErrorCode.InternalError, answer.error.message);
    return answer.value as never;
  };
  return {
    listResources: async () => ({
      resources: (await everyList<Resource>("resources/list", (s, r) => ({
        ...r,
        uri: wrapUri(s, r.uri),
        name: `${s}${PROMPT_SEPARATOR}${r.name ?? r.uri}`,
      }))) as never,
    }),
    listResourceTemplates: async () => ({
      resourceTemplates: (await everyList<ResourceTemplate>("resources/templates/list", (s, t) => ({
        ...t,
        uriTemplate: wrapTemplate(s, t.uriTemplate),
        name: `${s}${PROMPT_SEPARATOR}${t.name ?? t.uriTemplate}`,
      }))) as never,
    }),
    listPrompts: async () => ({
      prompts: (await everyList<Prompt>("prompts/list", (s, p) => ({ ...p, name: `${s}${PROMPT_SEPARATOR}${p.name}` }))) as never,
    }),
    readResource(params, gate) {
      // an artifact is mcpx's own, made by this session's run: no upstream server, no gate point
      if (isArtifactLink(params.uri)) return Promise.resolve(readArtifact(params.uri, deps.agent) as never);
      const { server: name, uri } = unwrapUri(params.uri, pool.names());
      return gated("resource.read", { server: name, target: uri }, {}, gate);
    },
    getPrompt(params, gate) {
      const { server: name, name: prompt } = unwrapPrompt(params.name, pool.names());
      return gated("prompt.get", { server: name, target: prompt }, params.arguments ?? {}, gate);
    },
  };
}

/**
 * What resources/read may answer with one artifact: an SDK client closes the whole connection on a
 * message over 10 MiB, so a larger read is refused rather than sent. Fixed by that client, not a setting.
 */
const ARTIFACT_READ_MAX = 10 * 1024 * 1024 - 4096;

/** an artifact link's bytes, for the session whose run made it; any other link is not found, as a resource of no server is */
function readArtifact(link: string, agent: AgentSession | undefined): { contents: ReturnType<typeof artifactContents>[] } {
  const kept = agent?.artifact(link);
  const missing = (why: string) => new McpError(ErrorCode.InvalidParams, `${JSON.stringify(link)} ${why}`, { uri: link });
  // another session's artifact is answered as one that never was: a link proves nothing to a session that did not make it
  if (!kept)
    throw missing("names no artifact of this session: an mcpx_exec answer links the artifacts of this session's own runs, readable while the session lasts");
  if (kept.size > ARTIFACT_READ_MAX)
    throw missing(`is ${kept.size} bytes, more than one MCP message carries (${ARTIFACT_READ_MAX} bytes): have the script make smaller artifacts`);
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(kept.path);
  } catch {
    throw missing("names an artifact whose bytes are gone from mcpx's cache: run the script again");
  }
  const contents = artifactContents(link, kept.mime, bytes);
  if (Buffer.byteLength(JSON.stringify(contents)) > ARTIFACT_READ_MAX)
    throw missing(`is ${kept.size} bytes, more than one MCP message carries once encoded (${ARTIFACT_READ_MAX} bytes): have the script make smaller artifacts`);
  return { contents: [contents] };
}
