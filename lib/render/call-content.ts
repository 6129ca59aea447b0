// How `mcpx call` shows a result whose content is not all text (an image beside a caption, an
// embedded resource): the text as text, and each binary item as one line naming its type, MIME type
// and size, instead of the raw JSON with its base64 (5.6 KB for everything's tiny image). With
// `-o FILE` the binary items are written out, and their lines say where.

import { writeFileSync } from "node:fs";
import { extname } from "node:path";
import { UsageError } from "../errors/usage-error.ts";

interface ContentItem {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
}

/** one binary item: the index of its content item, what it is, and its bytes */
interface Binary {
  index: number;
  label: string;
  bytes: Uint8Array;
}

/** the content list of a raw result when it holds anything but text; undefined for all-text or no content */
export function mixedContent(raw: unknown): ContentItem[] | undefined {
  const content = (raw as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return undefined;
  return content.some((c) => (c as ContentItem)?.type !== "text") ? (content as ContentItem[]) : undefined;
}

function binaries(content: readonly ContentItem[]): Binary[] {
  const found: Binary[] = [];
  content.forEach((c, index) => {
    if ((c.type === "image" || c.type === "audio") && typeof c.data === "string") {
      found.push({ index, label: `${c.type} ${str(c.mimeType) ?? "of no stated type"}`, bytes: Buffer.from(c.data, "base64") });
    } else if (c.type === "resource" && typeof c.resource?.blob === "string") {
      const what = [str(c.resource.uri), str(c.resource.mimeType)].filter(Boolean).join(" ");
      found.push({ index, label: `resource ${what || "blob"}`, bytes: Buffer.from(c.resource.blob, "base64") });
    }
  });
  return found;
}

/**
 * Writes the binary items to FILE (several: FILE, then FILE-2.EXT, FILE-3.EXT …) and returns each
 * item's file by content index. Nothing to write is an error, never a flag quietly ignored.
 */
export function writeBinaries(raw: unknown, file: string, what: string): Map<number, string> {
  const found = binaries(mixedContent(raw) ?? []);
  if (found.length === 0) throw new UsageError(`-o ${file}: the result of ${what} has no image, audio or blob resource to write; leave -o out`);
  return writeNumbered(found, file);
}

/** writes each item's bytes to FILE, FILE-2.EXT, FILE-3.EXT …; gives each item's file by its index */
export function writeNumbered(items: ReadonlyArray<{ index: number; bytes: Uint8Array }>, file: string): Map<number, string> {
  const ext = extname(file);
  const stem = ext ? file.slice(0, -ext.length) : file;
  const written = new Map<number, string>();
  items.forEach((b, i) => {
    const path = i === 0 ? file : `${stem}-${i + 1}${ext}`;
    try {
      writeFileSync(path, b.bytes);
    } catch (err) {
      throw new UsageError(`-o ${file}: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give a writable path`);
    }
    written.set(b.index, path);
  });
  return written;
}

/** the result as text: each text item's text, one line per other item; `written` names the files -o wrote */
export function describeContent(content: readonly ContentItem[], written: ReadonlyMap<number, string> = new Map()): string {
  const byIndex = new Map(binaries(content).map((b) => [b.index, b]));
  const lines = content.map((c, index) => {
    if (c.type === "text") return str(c.text) ?? "";
    const b = byIndex.get(index);
    const file = written.get(index);
    if (b) return `[${b.label}, ${size(b.bytes.length)}${file ? `, written to ${file}` : "; -o FILE writes it"}]`;
    if (c.type === "resource" && typeof c.resource?.text === "string") {
      return `[resource ${[str(c.resource.uri), str(c.resource.mimeType)].filter(Boolean).join(" ")}]\n${c.resource.text}`;
    }
    if (c.type === "resource_link") return `[resource link ${[str(c.uri), str(c.name) && `(${str(c.name)})`].filter(Boolean).join(" ")}]`;
    return JSON.stringify(c);
  });
  return lines.join("\n");
}

function str(x: unknown): string | undefined {
  return typeof x === "string" && x !== "" ? x : undefined;
}

export function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}
