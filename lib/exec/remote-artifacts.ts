// A --remote run's artifacts, made local: the daemon's artifact frames name `/v1/artifacts/ID`, a
// path on the daemon's address that only a client holding its socket or token can GET, and only
// while the daemon keeps it. Before the frames are rendered, each such artifact is fetched into the
// caller's own cache, content-addressed as a local run stores it (`artifacts/SHA256`, its sha256
// and size checked), and its frame's uri becomes that file's file:// URL: `--json`, `--output
// stream` and the text mode then show what a local run shows.

import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "./frames.ts";

type ArtifactFrame = Extract<Frame, { type: "artifact" }>;

/** the uris the daemon gives (lib/daemon/artifacts-route.ts artifactPath) */
const DAEMON_ARTIFACT = /^\/v1\/artifacts\/[^/]+$/;

/**
 * @param get GETs a daemon path with the run's address and token (lib/daemon/client.ts daemonGet)
 * @param dir the caller's cache's `artifacts`
 * @param warn says an artifact that could not be fetched; its frame keeps the daemon's uri
 */
export async function* withLocalArtifacts(
  frames: AsyncIterable<Frame>,
  get: (path: string) => Promise<Response>,
  dir: string,
  warn: (message: string) => void,
): AsyncIterable<Frame> {
  for await (const f of frames) {
    if (f.type !== "artifact" || !DAEMON_ARTIFACT.test(f.uri)) {
      yield f;
      continue;
    }
    try {
      const path = await store(await get(f.uri), f, dir);
      yield { ...f, uri: `file://${path}` };
    } catch (e) {
      // said, not dropped: the frame still says what the run made and where the daemon serves it
      warn(`artifact ${JSON.stringify(f.name)} (${f.id}) was not fetched from the daemon, so its uri stays ${f.uri}: ${(e as Error).message}`);
      yield f;
    }
  }
}

/**
 * Writes the body to a file of its own beside the content-addressed ones, hashing it as it comes,
 * and renames it into place only when its size and sha256 are the frame's. Renamed even when the
 * cache already has those bytes (the daemon's own cache, on the same machine and HOME): the file is
 * then the caller's, which the daemon never removes (lib/daemon/kept-artifacts.ts).
 */
async function store(res: Response, a: ArtifactFrame, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.tmp-${randomBytes(6).toString("hex")}`);
  const fd = openSync(tmp, "wx", 0o600);
  const hash = createHash("sha256");
  let size = 0;
  try {
    if (res.body) {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        size += chunk.byteLength;
        for (let off = 0; off < chunk.byteLength; ) off += writeSync(fd, chunk, off);
      }
    }
    closeSync(fd);
    const sha256 = hash.digest("hex");
    if (size !== a.size || sha256 !== a.sha256)
      throw new Error(`the daemon sent ${size} bytes with sha256 ${sha256}, where the frame says ${a.size} bytes with sha256 ${a.sha256}`);
    const path = join(dir, a.sha256);
    renameSync(tmp, path);
    return path;
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}
