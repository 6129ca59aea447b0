// An artifact's bytes as the frames of delivery "stream" (after end: artifact.chunk from seq 0,
// then artifact.end), read from its content-addressed file a chunk at a time, so a large artifact
// is never held whole.

import { closeSync, openSync, readSync } from "node:fs";
import type { Frame } from "./frames.ts";
import type { Artifact } from "../artifacts/run-artifacts.ts";

/** the bytes one artifact.chunk frame carries (before base64) */
const CHUNK_BYTES = 256 * 1024;

export function* artifactChunks(a: Artifact, path: string): Generator<Frame> {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(CHUNK_BYTES);
    for (let seq = 0; ; seq++) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      yield { type: "artifact.chunk", id: a.id, seq, data: buf.subarray(0, n).toString("base64") };
    }
  } finally {
    closeSync(fd);
  }
  yield { type: "artifact.end", id: a.id };
}
