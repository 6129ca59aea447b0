// The `artifact(name, data, { mime })` global: a file the script makes (a report, a chart, a
// screenshot) handed back through whichever door started the run. Its bytes travel on the ordered
// stream in chunks (artifact.open, artifact.data…, artifact.close), so a large one never sits whole
// in a frame, and the host stores them content-addressed and announces them in the run's frames
// (lib/artifacts). Runtime-neutral: a Blob or a ReadableStream is read where the runtime has them.

import { artifactClose } from "./channel.ts";
import { frame } from "./handoff.ts";
import { toBase64 } from "./base64.ts";

/** the most one data frame carries: text in characters, bytes before base64 */
const CHUNK = 512 * 1024;

let nextAid = 1;

function sendText(aid: number, text: string): void {
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + CHUNK);
    // never split a surrogate pair: each half alone is not UTF-8
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    frame({ t: "artifact.data", aid, text: text.slice(i, end) });
    i = end;
  }
}

function sendBytes(aid: number, bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i += CHUNK) frame({ t: "artifact.data", aid, b64: toBase64(bytes.subarray(i, i + CHUNK)) });
}

async function send(aid: number, data: unknown, fn: string): Promise<void> {
  if (typeof data === "string") return sendText(aid, data);
  if (data instanceof Uint8Array) return sendBytes(aid, data);
  if (data instanceof ArrayBuffer) return sendBytes(aid, new Uint8Array(data));
  const g = globalThis as Record<string, unknown>;
  const Blob = g.Blob as (new () => { arrayBuffer(): Promise<ArrayBuffer> }) | undefined;
  if (Blob && data instanceof Blob) return sendBytes(aid, new Uint8Array(await data.arrayBuffer()));
  const reader = (data as { getReader?: () => { read(): Promise<{ done: boolean; value?: unknown }> } } | null)?.getReader?.();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (typeof value === "string") sendText(aid, value);
      else if (value instanceof Uint8Array) sendBytes(aid, value);
      else throw new TypeError(`${fn}: the stream gave a ${typeof value}: a stream of strings or Uint8Arrays`);
    }
  }
  throw new TypeError(`${fn}: data is a string, a Uint8Array, an ArrayBuffer, a Blob or a ReadableStream (JSON.stringify an object first)`);
}

/** the global; resolves to {id, name, mime, size, sha256} once the host has the artifact */
export async function artifact(name: unknown, data: unknown, options?: unknown): Promise<unknown> {
  const fn = "artifact(name, data, { mime })";
  if (typeof name !== "string") throw new TypeError(`${fn}: the name is a string (a file name, no path)`);
  const mime = (options as { mime?: unknown } | undefined)?.mime;
  if (options !== undefined && (typeof options !== "object" || options === null)) throw new TypeError(`${fn}: options is an object`);
  if (mime !== undefined && typeof mime !== "string") throw new TypeError(`${fn}: mime is a string, like "text/csv"`);
  const aid = nextAid++;
  frame({ t: "artifact.open", aid, name, ...(mime !== undefined ? { mime } : {}) });
  await send(aid, data, fn);
  return artifactClose(aid);
}
