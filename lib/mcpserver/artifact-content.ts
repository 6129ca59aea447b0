// The artifacts a served run made (artifact(name, data)), as MCP content of its answer and as
// resources its agent session reads. Each comes back after the run's text, in the order made: text
// as text, an image or audio as such, anything else as an embedded resource; one that does not fit
// in mcp.maxAnswer beside the rest of the answer is never cut (half a PNG is no PNG): it is a
// resource_link the agent reads with resources/read, and the answer says which and why. Pure: the
// bytes come from a reader the caller gives (agent-run.ts reads the content-addressed files).

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Envelope } from "../exec/envelope.ts";
import { ENVELOPE_SLACK, wire, type ExecAnswer } from "./exec-answer.ts";

/**
 * An artifact's link: `mcpx:artifact/ID`. It has no `//` on purpose: every upstream resource mcpx
 * serves is `mcpx://SERVER/ENCODED-URI` (features.ts), so no server, one named `artifact`
 * included, can shadow a link or be shadowed by one, whatever a client fills a template with.
 */
const LINK_PREFIX = "mcpx:artifact/";

export function artifactLink(id: string): string {
  return LINK_PREFIX + encodeURIComponent(id);
}

export function isArtifactLink(uri: string): boolean {
  return uri.startsWith(LINK_PREFIX);
}

type Content = CallToolResult["content"][number];
/** an artifact as the run's envelope lists it (its uri is its link at the serve door) */
type Made = Envelope["artifacts"][number];

/** the answer of a served run: its content (the text first) and the envelope, when it fits */
export interface AgentAnswer {
  content: Content[];
  structured?: Record<string, unknown>;
}

/** application/ subtypes whose bytes are text a model reads as it is */
const TEXT_APPLICATIONS = new Set([
  "json",
  "xml",
  "javascript",
  "ecmascript",
  "x-javascript",
  "typescript",
  "csv",
  "yaml",
  "x-yaml",
  "toml",
  "sql",
  "graphql",
  "x-sh",
  "x-ndjson",
  "ndjson",
]);

/** whether a MIME type says text in UTF-8 (or no charset): text/*, JSON, XML, +json, +xml, scripts, CSV… */
export function isTextMime(mime: string): boolean {
  const [essence = "", ...params] = mime
    .toLowerCase()
    .split(";")
    .map((p) => p.trim());
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replace(/"/g, "");
  // text in another encoding is bytes: as text it would not be the bytes the script made
  if (charset !== undefined && !["utf-8", "utf8", "us-ascii"].includes(charset)) return false;
  const [type, sub = ""] = essence.split("/");
  if (type === "text") return true;
  if (/\+(json|xml|yaml)$/.test(sub)) return true;
  return type === "application" && TEXT_APPLICATIONS.has(sub);
}

/** bytes as UTF-8 text, byte for byte (a BOM kept), or undefined when they are not UTF-8 */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** an artifact's bytes as one content item; a text type whose bytes are not UTF-8 goes as a blob */
export function inlineItem(a: Pick<Made, "mime" | "uri">, bytes: Uint8Array): Content {
  if (isTextMime(a.mime)) {
    const text = utf8(bytes);
    if (text !== undefined) return { type: "text", text };
  }
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  const top = a.mime.split("/")[0]!.toLowerCase();
  if (top === "image") return { type: "image", data, mimeType: a.mime };
  if (top === "audio") return { type: "audio", data, mimeType: a.mime };
  return { type: "resource", resource: { uri: a.uri, mimeType: a.mime, blob: data } };
}

/** an artifact's bytes as resources/read gives them: text types as text, others as a blob */
export function artifactContents(link: string, mime: string, bytes: Uint8Array): { uri: string; mimeType: string; text?: string; blob?: string } {
  const text = isTextMime(mime) ? utf8(bytes) : undefined;
  if (text !== undefined) return { uri: link, mimeType: mime, text };
  return { uri: link, mimeType: mime, blob: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
}

function linkItem(a: Made): Content {
  return { type: "resource_link", uri: a.uri, name: a.name, mimeType: a.mime, size: a.size };
}

/**
 * The most of an answer the artifacts' links may take: the rest stays for the run's own output.
 * A run that makes more artifacts than this has links for has the rest named by their first and
 * last link. A quarter, so that a run of many small artifacts still gets most of the room.
 */
const LINKS_SHARE = 4;

/** the wire size of one more item in the content array (its comma included) */
const itemBytes = (c: Content) => wire(c) + 1;

/**
 * The run's answer with its artifacts. `fitRun(reserve)` is execAnswer within the cap less
 * `reserve`: the room every link and the note take at most, kept before the run's own text is fit,
 * so that an artifact that does not fit whole is still reachable however loud the run was. Then
 * each artifact in order is included whole if the room left holds it, and linked if not.
 * `read` gives an artifact's bytes (undefined when they are gone: it is linked).
 */
export function answerWithArtifacts(
  made: readonly Made[],
  max: number,
  read: (a: Made) => Uint8Array | undefined,
  fitRun: (reserve: number) => ExecAnswer,
): AgentAnswer {
  const text = (t: string): Content => ({ type: "text", text: t });
  if (made.length === 0) {
    const run = fitRun(0);
    return { content: [text(run.text)], ...(run.structured ? { structured: run.structured } : {}) };
  }
  const links = made.map(linkItem);
  let linkable = 0;
  let reserve = 0;
  for (; linkable < made.length && reserve + itemBytes(links[linkable]!) <= max / LINKS_SHARE; linkable++) reserve += itemBytes(links[linkable]!);
  // the note as long as it can get: every linkable artifact linked (an included one only shortens it)
  reserve += itemBytes(text(linkNote(made.slice(0, linkable), made.slice(linkable), max)));
  const run = fitRun(reserve);
  let room = max - ENVELOPE_SLACK - reserve - wire(run.text) - (run.structured ? wire(run.structured) : 0);
  const items: Content[] = [];
  const linked: Made[] = [];
  made.slice(0, linkable).forEach((a, i) => {
    const link = itemBytes(links[i]!);
    // what the bytes take at least as content, before they are read: text is no shorter than its UTF-8, base64 is 4/3
    const least = isTextMime(a.mime) ? a.size : Math.ceil(a.size / 3) * 4;
    const bytes = least - link <= room ? read(a) : undefined;
    const item = bytes && inlineItem(a, bytes);
    if (item && itemBytes(item) - link <= room) {
      room -= itemBytes(item) - link;
      items.push(item);
    } else {
      items.push(links[i]!);
      linked.push(a);
    }
  });
  const unlinked = made.slice(linkable);
  const note = linked.length || unlinked.length ? [text(linkNote(linked, unlinked, max))] : [];
  return { content: [text(run.text), ...items, ...note], ...(run.structured ? { structured: run.structured } : {}) };
}

/** what the answer says of the artifacts it linked rather than included, and of any it had no room to link */
function linkNote(linked: readonly Made[], unlinked: readonly Made[], max: number): string {
  const parts: string[] = [];
  if (linked.length)
    parts.push(
      `${linked.length === 1 ? "1 artifact is" : `${linked.length} artifacts are`} linked rather than included, ` +
        `as ${linked.length === 1 ? "it does" : "they do"} not fit whole within mcp.maxAnswer (${max} bytes) beside the rest ` +
        `of this answer: ${linked.map((a) => `${JSON.stringify(a.name)} (${a.size} bytes, ${a.uri})`).join(", ")}. ` +
        "Read a link with resources/read on this server, by this session while it lasts",
    );
  if (unlinked.length)
    parts.push(
      `${unlinked.length} more ${unlinked.length === 1 ? "artifact has" : "artifacts have"} no room even for a link here: ` +
        `${unlinked.length === 1 ? unlinked[0]!.uri : `${unlinked[0]!.uri} to ${unlinked.at(-1)!.uri}, in the order made`}`,
    );
  return (
    `[mcpx: ${parts.join("; ")}. To get artifacts inline: make fewer or smaller ones, or raise ` +
    "mcp.maxAnswer (MCPX_MCP_MAX_ANSWER) where the server runs, well under the 10 MiB an MCP client reads]"
  );
}
