// The artifacts of one run: what the script's `artifact(name, data)` calls made, received in chunks
// on the run's stream (launcher/artifact.ts), hashed as they arrive and stored content-addressed
// under the cache (`artifacts/SHA256`), so that two runs making the same bytes keep one copy and
// a reader can check what it got. Each closed artifact is announced in the run's frames in the
// order the script made them (execute.ts places them after the run's output, before onSuccess and
// onError, as decision 0001 orders). Bounded by exec.artifactsMax per run: past it the artifact is
// refused and its bytes are not kept.

import { frameError } from "../errors/frame-error.ts";
import { badFileName } from "../paths/file-name.ts";
import type { CallAnswer } from "../runtime/run-spec.ts";
import { contentWriter, type ContentWriter } from "./content-writer.ts";

/** an artifact as the `artifact` frame, the envelope and the hooks' payload describe it */
export interface Artifact {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  uri: string;
}

/** the uri an artifact is fetched at, given where its bytes are */
export type ArtifactUri = (a: Omit<Artifact, "uri">, path: string, made: boolean) => string;

export interface RunArtifacts {
  open(aid: number, name: string, mime?: string): void;
  data(aid: number, chunk: { text?: string; b64?: string }): void;
  /** the artifact done: stored and answered with its description, or the error its name or size met */
  close(aid: number): CallAnswer;
  /** the artifacts closed since the last take, in the order they were made */
  take(): Artifact[];
  /** every artifact closed so far */
  all(): Artifact[];
  /** where an artifact's bytes are (the content-addressed file) */
  pathOf(id: string): string | undefined;
  /** ends the run's side: artifacts never closed are dropped, and their names returned */
  end(): string[];
}

interface Open {
  name: string;
  mime: string;
  /** why it cannot be kept; its bytes are then read and dropped */
  refused?: string;
  /** its bytes on their way into the store; none once refused */
  writer?: ContentWriter;
  text: boolean;
}

/**
 * @param dir where the content-addressed files go (the cache's `artifacts`)
 * @param maxBytes the most one run's artifacts may hold together (exec.artifactsMax), 0 = no limit
 * @param uriOf the `uri` the caller can fetch the artifact at: a file:// URL locally, a /v1 route on the daemon;
 * `made`: no file held these bytes before this one
 */
export function newRunArtifacts(dir: string, runId: string, maxBytes: number, uriOf?: ArtifactUri): RunArtifacts {
  const open = new Map<number, Open>();
  const closed: Artifact[] = [];
  const paths = new Map<string, string>();
  let taken = 0;
  let total = 0;

  const drop = (o: Open) => {
    o.writer?.abort();
    o.writer = undefined;
  };

  return {
    open(aid, name, mime) {
      const bad =
        badFileName(name, "an artifact name") ??
        (mime !== undefined && !MIME.test(mime)
          ? `mime ${JSON.stringify(mime)} is not a MIME type: type/subtype with optional parameters, printable ASCII ("text/csv", "image/png; foo=bar")`
          : undefined);
      open.set(aid, {
        name,
        mime: mime ?? "",
        text: true,
        ...(bad ? { refused: `artifact(${JSON.stringify(name)}): ${bad}` } : { writer: contentWriter(dir) }),
      });
    },
    data(aid, chunk) {
      const o = open.get(aid);
      if (!o?.writer) return;
      const bytes = chunk.b64 !== undefined ? Buffer.from(chunk.b64, "base64") : Buffer.from(chunk.text ?? "", "utf8");
      if (chunk.b64 !== undefined) o.text = false;
      if (maxBytes > 0 && total + bytes.length > maxBytes) {
        o.refused =
          `artifact(${JSON.stringify(o.name)}): the run's artifacts would pass exec.artifactsMax (${maxBytes} bytes); ` +
          "it was not kept. Make smaller artifacts, or raise exec.artifactsMax where mcpx runs";
        drop(o);
        return;
      }
      total += bytes.length;
      o.writer.write(bytes);
    },
    close(aid) {
      const o = open.get(aid);
      open.delete(aid);
      if (!o) return { ok: false, error: frameError("ARTIFACT", `artifact ${aid} was never begun: a close the launcher did not make`) };
      if (o.refused) {
        drop(o);
        return { ok: false, error: frameError("ARTIFACT", o.refused) };
      }
      const { sha256, size, keep } = o.writer!.done();
      const { path, made } = keep();
      const described = { id: `${runId}.${closed.length + 1}`, name: o.name, mime: o.mime || mimeOf(o.name, o.text), size, sha256 };
      const a: Artifact = { ...described, uri: uriOf ? uriOf(described, path, made) : `file://${path}` };
      closed.push(a);
      paths.set(a.id, path);
      return { ok: true, value: { id: a.id, name: a.name, mime: a.mime, size: a.size, sha256: a.sha256 } };
    },
    take() {
      const fresh = closed.slice(taken);
      taken = closed.length;
      return fresh;
    },
    all: () => [...closed],
    pathOf: (id) => paths.get(id),
    end() {
      const names = [...open.values()].map((o) => o.name);
      for (const o of open.values()) drop(o);
      open.clear();
      return names;
    },
  };
}

/** a MIME type as a header carries it (RFC 9110 media-type): no control characters, nothing a header could be split on */
const MIME = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[\x20-\x21\x23-\x7e]*"|[\w!#$&^.+-]+))*$/;

/** the MIME type a name's extension says; text with no known extension is text/plain */
function mimeOf(name: string, text: boolean): string {
  const byName = Bun.file(name).type;
  if (byName && byName !== "application/octet-stream") return byName;
  return text ? "text/plain;charset=utf-8" : "application/octet-stream";
}
