// How `mcpx resource` and `mcpx prompt` show what they read: a resource's text contents as text and
// each blob as one line naming it (written to -o FILE, or a hint; bytes are never dumped on a
// terminal), a prompt's messages one after another with their role, each content item shown as
// `mcpx call` shows a result's (call-content.ts), and the lists as tab-separated rows.

import { UsageError } from "../errors/usage-error.ts";
import type { Prompt, Resource, ResourceTemplate } from "../mcp/server-features.ts";
import { describeContent, size, writeNumbered } from "./call-content.ts";

interface ResourceContents {
  uri?: unknown;
  mimeType?: unknown;
  text?: unknown;
  blob?: unknown;
}

const contentsOf = (result: unknown): ResourceContents[] => ((result as { contents?: unknown }).contents as ResourceContents[]) ?? [];
const blobLabel = (c: ResourceContents) => `blob ${[c.uri, c.mimeType].filter((x) => typeof x === "string" && x).join(" ")}`;

/** the blobs of a resources/read result by index, written to FILE (several: FILE, FILE-2.EXT, …); none to write is an error */
export function writeBlobs(result: unknown, file: string, what: string): Map<number, string> {
  const blobs = contentsOf(result).flatMap((c, index) => (typeof c.blob === "string" ? [{ index, bytes: Buffer.from(c.blob, "base64") }] : []));
  if (blobs.length === 0) throw new UsageError(`-o ${file}: ${what} has no blob contents to write (it is text: leave -o out)`);
  return writeNumbered(blobs, file);
}

/** true when a resources/read result has blob contents */
export function hasBlob(result: unknown): boolean {
  return contentsOf(result).some((c) => typeof c.blob === "string");
}

/** a resources/read result as text: each text as it is, each blob as one line saying where it went, or how to get it */
export function resourceText(result: unknown, written: ReadonlyMap<number, string>): string {
  return contentsOf(result)
    .map((c, index) => {
      if (typeof c.text === "string") return c.text;
      if (typeof c.blob !== "string") return JSON.stringify(c);
      const file = written.get(index);
      const bytes = Buffer.from(c.blob, "base64").length;
      return `[${blobLabel(c)}, ${size(bytes)}${file ? `, written to ${file}` : "; -o FILE writes it, --json gives it as base64"}]`;
    })
    .join("\n");
}

/** a prompts/get result as text: its description, then each message as `[role]` and its content */
export function promptText(result: unknown): string {
  const r = result as { description?: unknown; messages: Array<{ role?: unknown; content?: unknown }> };
  const parts = typeof r.description === "string" && r.description ? [`# ${r.description}`] : [];
  for (const m of r.messages) {
    const content = Array.isArray(m.content) ? m.content : [m.content];
    parts.push(`[${String(m.role ?? "message")}]`, describeContent(content as never[]));
  }
  return parts.join("\n");
}

/** the rows of `mcpx resource SERVER`: resources, then templates (their URI has {…} in it) */
export function resourceRows(resources: Resource[], templates: ResourceTemplate[]): string[][] {
  const row = (uri: string, r: { name?: string; title?: string; mimeType?: string; description?: string }) => [
    uri,
    r.title ?? r.name ?? "",
    r.mimeType ?? "",
    r.description?.split("\n")[0] ?? "",
  ];
  return [...resources.map((r) => row(r.uri, r)), ...templates.map((t) => row(t.uriTemplate, t))];
}

/** the rows of `mcpx prompt SERVER`: name, its arguments (required ones marked), description */
export function promptRows(prompts: Prompt[]): string[][] {
  return prompts.map((p) => [
    p.name,
    (p.arguments ?? []).map((a) => `${a.name}=…${a.required ? " (required)" : ""}`).join(" "),
    p.description?.split("\n")[0] ?? "",
  ]);
}
