// Artifacts through the daemon: a /v1/exec run's artifact frames name /v1/artifacts/ID, which serves
// the bytes (its mime, length, name and sha256 in the headers) while the daemon keeps them, behind
// the same auth as the rest of /v1; delivery "stream" sends them after end in the contract's order;
// daemon.artifactTtl and daemon.artifactMax forget them, saying which; and `mcpx exec --remote`
// fetches each into the caller's own cache, so its uris are local file:// URLs as a local run's are.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkFrameOrder } from "../../lib/exec/frame-order.ts";
import type { Frame as ProductFrame } from "../../lib/exec/frames.ts";
import type { Artifact } from "../../lib/artifacts/run-artifacts.ts";
import { sandbox } from "./harness.ts";
import { expectExit, frameOrderProblems, mcpx, parseFrames, type Frame } from "./support.ts";
import { execEnvelope, execFrames, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
/** the daemon's cache is not the callers': a --remote client's file:// URLs must be its own copies */
const DAEMON_CACHE = join(sb.home, "daemon-cache");
const SOCK = join(sb.dir, "run", "artifacts.sock");
const TOKEN = "artifact-token-" + "0123456789abcdef";
let d: Daemon;
let tcp: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  [d, tcp] = await Promise.all([
    startDaemon(sb, ["--daemon-address", SOCK], { env: { XDG_CACHE_HOME: DAEMON_CACHE } }),
    startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { XDG_CACHE_HOME: DAEMON_CACHE, MCPX_DAEMON_TOKEN: TOKEN } }),
  ]);
});

/** the 3 MB text artifact, made the same way by the script (its source is this function's) and the test */
function threeMegabytes(): string {
  let s = "";
  for (let i = 0; s.length < 3_000_000; i++) s += `line ${i} of the report\n`;
  return s.slice(0, 3_000_000);
}
/** bytes 0..255 repeated, past two stream chunks (256 KiB each) */
const BINARY_SIZE = 600_000;
const binary = () => Uint8Array.from({ length: BINARY_SIZE }, (_, i) => i % 256);

const SCRIPT = [
  'await artifact("one.bin", new Uint8Array([42]));',
  `await artifact("report.txt", (${threeMegabytes.toString()})());`,
  `await artifact("bytes.bin", Uint8Array.from({ length: ${BINARY_SIZE} }, (_, i) => i % 256), { mime: "application/x-test" });`,
  'console.log("made three");',
].join("\n");

const EXPECTED: Record<string, Uint8Array> = {
  "one.bin": new Uint8Array([42]),
  "report.txt": new TextEncoder().encode(threeMegabytes()),
  "bytes.bin": binary(),
};

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe.concurrent("GET /v1/artifacts/{id}", () => {
  test("each artifact of a /v1/exec run is served at its uri, byte for byte, with its mime, length, name and sha256", async () => {
    const env = await execEnvelope(d, { source: SCRIPT });
    expect(env.ok).toBe(true);
    const artifacts = env.artifacts as Artifact[];
    expect(artifacts.map((a) => a.name)).toEqual(["one.bin", "report.txt", "bytes.bin"]);
    for (const a of artifacts) {
      expect(a.uri).toBe(`/v1/artifacts/${a.id}`);
      const res = await d.fetch(a.uri);
      expect(res.status).toBe(200);
      const got = new Uint8Array(await res.arrayBuffer());
      // compared whole, not by hash alone: a served file that differed would still match a stale sha256 header
      expect(Buffer.from(got).equals(Buffer.from(EXPECTED[a.name]!))).toBe(true);
      expect(sha256(got)).toBe(a.sha256);
      expect(a.size).toBe(EXPECTED[a.name]!.length);
      expect(res.headers.get("x-mcpx-sha256")).toBe(a.sha256);
      expect(res.headers.get("content-length")).toBe(String(a.size));
      expect(res.headers.get("content-type")).toBe(a.mime);
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${a.name}"`);
    }
    expect(artifacts.find((a) => a.name === "bytes.bin")!.mime).toBe("application/x-test");
  });

  test('delivery "stream": the chunks after end decode to the same bytes, and the frames keep the contract\'s order', async () => {
    const frames = await execFrames(d, { source: SCRIPT, delivery: "stream" });
    expect(checkFrameOrder(frames as unknown as ProductFrame[])).toEqual([]);
    expect(frameOrderProblems(frames)).toEqual([]);
    const end = frames.findIndex((f) => f.type === "end");
    const announced = frames.filter((f) => f.type === "artifact") as unknown as Artifact[];
    expect(announced.map((a) => a.name)).toEqual(["one.bin", "report.txt", "bytes.bin"]);
    expect(frames.slice(end + 1).every((f) => f.type === "artifact.chunk" || f.type === "artifact.end")).toBe(true);
    for (const a of announced) {
      const chunks = frames.slice(end + 1).filter((f) => f.type === "artifact.chunk" && f.id === a.id);
      expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
      const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c.data as string, "base64")));
      expect(bytes.equals(Buffer.from(EXPECTED[a.name]!))).toBe(true);
      expect(sha256(bytes)).toBe(a.sha256);
      // the uri serves the same bytes as the chunks carried
      expect(Buffer.from(await (await d.fetch(a.uri)).arrayBuffer()).equals(bytes)).toBe(true);
    }
  });

  test("an id no run made is a 404 saying so; an id that is not RUNID.N is a 400", async () => {
    const unknown = await d.fetch("/v1/artifacts/01234567-89ab-4cde-8f01-23456789abcd.1");
    expect(unknown.status).toBe(404);
    const body = (await unknown.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("NO_ARTIFACT");
    expect(body.error.message).toContain("none of its runs made it");
    const bad = await d.fetch("/v1/artifacts/..%2Fsecret");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("BAD_ARTIFACT_ID");
  });

  test("a name with quotes is escaped in content-disposition, and one beyond ASCII travels in filename*", async () => {
    const env = await execEnvelope(d, { source: 'await artifact(\'say "hi".txt\', "a"); await artifact("résumé.txt", "b");' });
    const [quoted, accented] = env.artifacts as Artifact[];
    expect((await d.fetch(quoted!.uri)).headers.get("content-disposition")).toBe('attachment; filename="say \\"hi\\".txt"');
    expect((await d.fetch(accented!.uri)).headers.get("content-disposition")).toBe(`attachment; filename="r_sum_.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`);
  });
});

describe.concurrent("over TCP", () => {
  test("the route needs the bearer token like the rest of /v1: without it 401, with it the bytes", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const res = await tcp.fetch("/v1/exec", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ source: 'await artifact("secret.txt", "for the token holder")' }),
    });
    const [a] = ((await res.json()) as { artifacts: Artifact[] }).artifacts;
    const refused = await tcp.fetch(a!.uri);
    expect(refused.status).toBe(401);
    expect(await refused.text()).not.toContain("for the token holder");
    expect((await tcp.fetch(a!.uri, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    const served = await tcp.fetch(a!.uri, { headers: auth });
    expect(await served.text()).toBe("for the token holder");
  });

  test("mcpx exec --remote fetches with the run's token, into the caller's cache", async () => {
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", tcp.address, "--json", 'await artifact("t.txt", "over tcp")'], {
      env: { MCPX_DAEMON_TOKEN: TOKEN },
    });
    expectExit(r, 0);
    const [a] = (JSON.parse(r.stdout) as { artifacts: Artifact[] }).artifacts;
    expect(a!.uri).toBe(`file://${join(sb.env.XDG_CACHE_HOME!, "mcpx", "artifacts", a!.sha256)}`);
    expect(readFileSync(new URL(a!.uri), "utf8")).toBe("over tcp");
  });
});

describe.concurrent("mcpx exec --remote shows what a local run shows", () => {
  test("--json: the same artifacts, each a file:// URL in the caller's cache holding the same bytes as the local run's", async () => {
    const [local, remote] = await Promise.all([
      mcpx(sb, ["exec", "--json", SCRIPT]),
      mcpx(sb, ["exec", "--remote", "--daemon-address", SOCK, "--json", SCRIPT]),
    ]);
    expectExit(local, 0);
    expectExit(remote, 0);
    const mine = (JSON.parse(local.stdout) as { artifacts: Artifact[] }).artifacts;
    const theirs = (JSON.parse(remote.stdout) as { artifacts: Artifact[] }).artifacts;
    const shape = (a: Artifact) => ({ name: a.name, mime: a.mime, size: a.size, sha256: a.sha256 });
    expect(theirs.map(shape)).toEqual(mine.map(shape));
    for (const [i, a] of theirs.entries()) {
      // the caller's cache, not the daemon's: the copy was fetched, and outlives the daemon keeping it
      expect(a.uri).toBe(`file://${join(sb.env.XDG_CACHE_HOME!, "mcpx", "artifacts", a.sha256)}`);
      expect(a.uri).toBe(mine[i]!.uri);
      const bytes = readFileSync(new URL(a.uri));
      expect(bytes.equals(Buffer.from(EXPECTED[a.name]!))).toBe(true);
    }
    expect(remote.stderr).toBe(local.stderr);
  });

  test("--output stream: the artifact frames name local files, in the same order as the daemon's", async () => {
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", SOCK, "--output", "stream", SCRIPT]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frameOrderProblems(frames)).toEqual([]);
    const artifacts = frames.filter((f: Frame) => f.type === "artifact") as unknown as Artifact[];
    expect(artifacts.map((a) => a.name)).toEqual(["one.bin", "report.txt", "bytes.bin"]);
    for (const a of artifacts) expect(a.uri).toStartWith(`file://${join(sb.env.XDG_CACHE_HOME!, "mcpx", "artifacts")}/`);
  });

  test("the text mode says where each is on this machine, and --artifacts DIR writes them from the fetched copies", async () => {
    const dir = join(sb.dir, "remote-out");
    mkdirSync(dir);
    const [local, remote] = await Promise.all([
      mcpx(sb, ["exec", SCRIPT]),
      mcpx(sb, ["exec", "--remote", "--daemon-address", SOCK, "--artifacts", dir, SCRIPT]),
    ]);
    expectExit(local, 0);
    expectExit(remote, 0);
    expect(remote.stdout).toBe(local.stdout);
    const sha = sha256(EXPECTED["report.txt"]!);
    expect(local.stderr).toContain(`artifact: report.txt (3000000 bytes, text/plain;charset=utf-8): ${join(sb.env.XDG_CACHE_HOME!, "mcpx", "artifacts", sha)}`);
    // without the fetch, --artifacts would refuse each as "at /v1/artifacts/ID, not on this machine"
    for (const name of Object.keys(EXPECTED)) expect(readFileSync(join(dir, name)).equals(Buffer.from(EXPECTED[name]!))).toBe(true);
    expect(remote.stderr).toContain(`artifact: report.txt (3000000 bytes, text/plain;charset=utf-8): ${join(dir, "report.txt")}`);
  });

  test("bytes that do not match the frame's sha256 are not stored, and the uri stays the daemon's, said on stderr", async () => {
    // the script replaces its own artifact's content file in the daemon's cache with other bytes of the same length
    const good = "good bytes";
    const file = join(DAEMON_CACHE, "mcpx", "artifacts", sha256(new TextEncoder().encode(good)));
    const source = `await artifact("x.txt", ${JSON.stringify(good)}); (await import("node:fs")).writeFileSync(${JSON.stringify(file)}, "evil bytes");`;
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", SOCK, "--json", source]);
    expectExit(r, 0);
    const [a] = (JSON.parse(r.stdout) as { artifacts: Artifact[] }).artifacts;
    expect(a!.uri).toBe(`/v1/artifacts/${a!.id}`);
    expect(r.stderr).toContain(`artifact "x.txt" (${a!.id}) was not fetched from the daemon, so its uri stays /v1/artifacts/${a!.id}`);
    expect(r.stderr).toContain(`where the frame says 10 bytes with sha256 ${a!.sha256}`);
    expect(existsSync(join(sb.env.XDG_CACHE_HOME!, "mcpx", "artifacts", a!.sha256))).toBe(false);
  });
});

describe("the daemon forgets, and says which", () => {
  test("past daemon.artifactMax the oldest goes, and its content file with it (the daemon wrote it, nothing else holds it)", async () => {
    const small = await startDaemon(sb, ["--daemon-address", join(sb.dir, "run", "small.sock"), "--daemon-artifact-max", "1"], {
      env: { XDG_CACHE_HOME: join(sb.home, "small-cache") },
    });
    // 700 KB, then 600 KB: together past 1 MiB, so the first is forgotten as the second is kept
    const env = await execEnvelope(small, {
      source: `await artifact("first.bin", new Uint8Array(700000).fill(1)); await artifact("second.bin", new Uint8Array(600000).fill(2));`,
    });
    const [first, second] = env.artifacts as Artifact[];
    const gone = await small.fetch(first!.uri);
    expect(gone.status).toBe(404);
    const body = (await gone.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ARTIFACT_EVICTED");
    expect(body.error.message).toContain("daemon.artifactMax (1 MiB)");
    expect(existsSync(join(sb.home, "small-cache", "mcpx", "artifacts", first!.sha256))).toBe(false);
    expect((await small.fetch(second!.uri)).status).toBe(200);
  });

  test("after daemon.artifactTtl from its run's end an artifact is a 404 saying it expired", async () => {
    const brief = await startDaemon(sb, ["--daemon-address", join(sb.dir, "run", "brief.sock"), "--daemon-artifact-ttl", "1ms"], {
      env: { XDG_CACHE_HOME: join(sb.home, "brief-cache") },
    });
    const env = await execEnvelope(brief, { source: 'await artifact("soon.txt", "gone soon")' });
    const [a] = env.artifacts as Artifact[];
    // another whole run (a runtime process started and ended) lies between: far more than 1 ms
    expect((await execEnvelope(brief, { source: "export default () => 1" })).ok).toBe(true);
    const res = await brief.fetch(a!.uri);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ARTIFACT_EXPIRED");
    expect(body.error.message).toContain("daemon.artifactTtl (1ms) after its run ends");
  });
});
