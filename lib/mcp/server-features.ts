// A server's resources and prompts: the lists (every page, as tools/list is read) and the two
// requests that fetch one (resources/read, prompts/get). The lists are read like the tool list and
// pass no hook; the two requests go upstream only through the pool's SEND_FEATURE_REQUEST, which
// only the gate's resource.read and prompt.get points hold (lib/exec/gated-feature.ts).

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { FeatureOp } from "../../launcher/wire.ts";
import { isPlainObject } from "../util/json-type.ts";
import { failedCall } from "./call-failure.ts";
import { closedTransports, overLimitTransports, PASS_THROUGH, type Connection } from "./connection.ts";
import { UpstreamError } from "./upstream-error.ts";

export interface Resource {
  uri: string;
  name?: string;
  title?: string;
  mimeType?: string;
  description?: string;
  size?: number;
}
export interface ResourceTemplate {
  uriTemplate: string;
  name?: string;
  title?: string;
  mimeType?: string;
  description?: string;
}
interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
}

/** the two requests a script or a command may make of a server beside tools/call, each a gate point (declared once, on the wire) */
export type { FeatureOp };

/** what each list's page carries, the field each item must have as a string, and the capability it needs */
const LISTS = {
  "resources/list": { key: "resources", id: "uri", capability: "resources" },
  "resources/templates/list": { key: "resourceTemplates", id: "uriTemplate", capability: "resources" },
  "prompts/list": { key: "prompts", id: "name", capability: "prompts" },
} as const;
export type ListMethod = keyof typeof LISTS;

/**
 * Every page of one list, in order (nextCursor followed to its end); empty for a server that does not
 * declare the capability the list belongs to: it would only answer "method not found".
 */
export async function listAllOf(server: string, client: Client, method: ListMethod, timeoutMs: number): Promise<unknown[]> {
  const spec = LISTS[method];
  if (!client.getServerCapabilities()?.[spec.capability]) return [];
  const items: unknown[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({ method, params: cursor ? { cursor } : undefined }, PASS_THROUGH as never, { timeout: timeoutMs })) as unknown;
    const list = isPlainObject(page) ? page[spec.key] : undefined;
    if (!Array.isArray(list) || !list.every((i) => isPlainObject(i) && typeof i[spec.id] === "string"))
      throw new UpstreamError(
        `server "${server}" answered ${method} with something that is not a list of ${spec.key} ({${spec.id}, …})`,
        server,
        "UPSTREAM_ERROR",
      );
    items.push(...list);
    const next = (page as { nextCursor?: unknown }).nextCursor;
    if (next !== undefined && typeof next !== "string")
      throw new UpstreamError(`server "${server}" answered ${method} with a nextCursor that is not a string`, server, "UPSTREAM_ERROR");
    cursor = next;
  } while (cursor);
  return items;
}

/** one resources/read or prompts/get; the result as it came, checked for the one list a reader walks */
export async function requestFeature(
  server: string,
  client: Client,
  op: FeatureOp,
  target: string,
  args: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const request =
    op === "resource.read"
      ? { method: "resources/read", params: { uri: target } }
      : { method: "prompts/get", params: { name: target, ...(Object.keys(args).length ? { arguments: args } : {}) } };
  const result = (await client.request(request, PASS_THROUGH as never, { timeout: timeoutMs })) as unknown;
  const list = op === "resource.read" ? "contents" : "messages";
  if (!isPlainObject(result) || !Array.isArray(result[list]))
    throw new UpstreamError(`server "${server}" answered ${request.method} with something that has no ${list} list`, server, "UPSTREAM_ERROR");
  return result;
}

/** a failed resources/read or prompts/get, said as a failed call is (call-failure.ts); `drop`: the server is to be dropped */
export async function featureFailure(
  server: string,
  conn: Connection,
  req: { op: FeatureOp; target: string; timeoutMs: number; maxMessageBytes: number },
  err: unknown,
): Promise<{ error: Error; drop?: string }> {
  if (err instanceof UpstreamError) return { error: err };
  const request = `${req.op === "resource.read" ? "resources/read" : "prompts/get"} ${JSON.stringify(req.target)}`;
  return failedCall(
    {
      server,
      tool: req.target,
      request,
      timeoutMs: req.timeoutMs,
      keepOnTimeout: false,
      maxMessageBytes: req.maxMessageBytes,
      overLimit: overLimitTransports.has(conn.transport),
      closed: closedTransports.has(conn.transport),
    },
    err,
  );
}
