// A --remote run's artifacts, made local: the daemon's artifact frames name `/v1/artifacts/ID`, a
// path on the daemon's address that only a client holding its socket or token can GET, and only
// while the daemon keeps it. Before the frames are rendered, each such artifact is fetched into the
// caller's own cache, content-addressed as a local run stores it (`artifacts/SHA256`, its sha256
// and size checked), and its frame's uri becomes that file's file:// URL: `--json`, `--output
// stream` and the text mode then show what a local run shows.

import { contentWriter } from "../artifacts/content-writer.ts";
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
 * Stores the body in the cache as a local run stores an artifact (lib/artifacts/content-writer.ts),
 * kept only when its size and sha256 are the frame's.
 */
async function store(res: Response, a: ArtifactFrame, dir: string): Promise<string> {
  const w = contentWriter(dir);
  try {
    if (res.body) for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) w.write(chunk);
    const got = w.done();
    if (got.size !== a.size || got.sha256 !== a.sha256)
      throw new Error(`the daemon sent ${got.size} bytes with sha256 ${got.sha256}, where the frame says ${a.size} bytes with sha256 ${a.sha256}`);
    return got.keep().path;
  } catch (e) {
    w.abort();
    throw e;
  }
}
