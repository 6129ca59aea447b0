// Artifacts on the CLI: what `artifact(name, data)` makes is announced in its place in the frames
// (after the run's output, before onSuccess/onError), said on stderr with where it is, listed in
// --json, written by --artifacts DIR (never through a link, never over a file without --force), and
// with --delivery stream its bytes follow end. A 1-byte, a 3 MB text and a binary artifact arrive
// byte for byte on both sandbox engines and the unsandboxed runtime; the hooks see them.

import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, frameOrderProblems, mcpx, parseFrames, productGuardProblems, writeConfig, type Frame } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

/** the three artifacts every door must deliver byte for byte */
const MAKE_THREE =
  'await artifact("one.txt", "x"); ' +
  "await artifact(\"big.log\", Array.from({ length: 60000 }, (_, i) => `line ${i} ` + 'y'.repeat(40)).join('\\n')); " +
  'await artifact("blob.bin", Uint8Array.from({ length: 1024 }, (_, i) => i % 256)); return "made"';
const BIG = Buffer.from(Array.from({ length: 60000 }, (_, i) => `line ${i} ` + "y".repeat(40)).join("\n"));
const BLOB = Buffer.from(Uint8Array.from({ length: 1024 }, (_, i) => i % 256));
const EXPECTED: Record<string, Buffer> = { "one.txt": Buffer.from("x"), "big.log": BIG, "blob.bin": BLOB };

type ArtifactFrame = Frame & { id: string; name: string; mime: string; size: number; sha256: string; uri: string };
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.concurrent("artifacts on the command line", () => {
  for (const how of [
    ["--sandbox", "off"],
    ["--sandbox", "on"],
    ["--sandbox", "on", "--sandbox-engine", "deno"],
  ]) {
    test(`${how.join(" ")}: each is announced after the output and before onSuccess, in the order made, its file byte for byte`, async () => {
      const hook = JSON.stringify([{ name: "seen", on: "script", phase: "onSuccess", run: ["sh", "-c", "cat > /dev/null"] }]);
      const r = await mcpx(sb, ["exec", ...how, "--output", "stream", "--hooks", hook, `console.log("before"); ${MAKE_THREE}`]);
      expectExit(r, 0);
      const frames = parseFrames(r.stdout);
      expect([...frameOrderProblems(frames), ...productGuardProblems(frames)]).toEqual([]);
      const types = frames.map((f) => (f.type === "hook" ? `hook ${f.phase}` : f.type));
      expect(types).toEqual(["start", "stdout", "artifact", "artifact", "artifact", "hook onSuccess", "result", "end"]);
      const arts = frames.filter((f) => f.type === "artifact") as ArtifactFrame[];
      expect(arts.map((a) => a.name)).toEqual(["one.txt", "big.log", "blob.bin"]);
      expect(arts.map((a) => a.mime)).toEqual(["text/plain;charset=utf-8", "text/plain;charset=utf-8", "application/octet-stream"]);
      for (const a of arts) {
        const bytes = readFileSync(fileURLToPath(a.uri));
        expect(bytes.equals(EXPECTED[a.name]!)).toBe(true);
        expect([a.size, a.sha256]).toEqual([bytes.length, sha(bytes)]);
      }
    }, 60_000);
  }

  test("the default output says on stderr where each is; --json lists them in the envelope", async () => {
    const text = await mcpx(sb, ["exec", 'await artifact("report.csv", "a,b\\n1,2\\n", { mime: "text/csv" })']);
    expectExit(text, 0);
    const line = /artifact: report\.csv \(8 bytes, text\/csv\): (\S+)/.exec(text.stderr);
    expect(line).not.toBeNull();
    expect(readFileSync(line![1]!, "utf8")).toBe("a,b\n1,2\n");
    const json = await mcpx(sb, ["exec", "--json", 'await artifact("report.csv", "a,b\\n1,2\\n", { mime: "text/csv" })']);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout).artifacts).toEqual([
      {
        id: expect.any(String),
        name: "report.csv",
        mime: "text/csv",
        size: 8,
        sha256: sha(Buffer.from("a,b\n1,2\n")),
        uri: expect.stringMatching(/^file:\/\//),
      },
    ]);
  }, 60_000);

  test("--artifacts DIR writes each by name; an existing file or a link there is an error (exit 1) unless --force, which replaces the link", async () => {
    const dir = join(sb.dir, `out-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    const r = await mcpx(sb, ["exec", "--artifacts", dir, MAKE_THREE]);
    expectExit(r, 0);
    for (const [name, bytes] of Object.entries(EXPECTED)) expect(readFileSync(join(dir, name)).equals(bytes)).toBe(true);
    expect(r.stderr).toContain(`artifact: blob.bin (1024 bytes, application/octet-stream): ${join(dir, "blob.bin")}`);

    const target = join(sb.dir, `precious-${Math.random().toString(36).slice(2)}`);
    writeFileSync(target, "the user's file");
    symlinkSync(target, join(dir, "link.txt"));
    const again = await mcpx(sb, ["exec", "--artifacts", dir, 'await artifact("one.txt", "new"); await artifact("link.txt", "through the link?")']);
    expectExit(again, 1);
    expect(again.stderr).toContain(`artifact one.txt not written: ${join(dir, "one.txt")} exists (--force replaces it)`);
    expect(again.stderr).toContain(`artifact link.txt not written: ${join(dir, "link.txt")} exists`);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("x");
    expect(readFileSync(target, "utf8")).toBe("the user's file");

    const forced = await mcpx(sb, ["exec", "--artifacts", dir, "--force", 'await artifact("one.txt", "new"); await artifact("link.txt", "replaced")']);
    expectExit(forced, 0);
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("new");
    expect(readFileSync(join(dir, "link.txt"), "utf8")).toBe("replaced");
    expect(readFileSync(target, "utf8")).toBe("the user's file");
  }, 60_000);

  test("bad flags are usage errors before anything runs: a missing DIR, --force alone, an unknown --delivery", async () => {
    const missing = await mcpx(sb, ["exec", "--artifacts", join(sb.dir, "no-such-dir"), "return 1"]);
    expectExit(missing, 2);
    expect(missing.stderr).toContain("no-such-dir: not a directory (make it first: mkdir -p");
    const force = await mcpx(sb, ["exec", "--force", "return 1"]);
    expectExit(force, 2);
    expect(force.stderr).toContain("--force replaces files --artifacts DIR writes: give --artifacts DIR too");
    const delivery = await mcpx(sb, ["exec", "--delivery", "email", "return 1"]);
    expectExit(delivery, 2);
    expect(delivery.stderr).toContain("--delivery email: use one of uri, stream");
  }, 60_000);

  test("names are one file name: a path, a dot file or a control character is refused naming the rule, and nothing is written", async () => {
    const dir = join(sb.dir, `names-${Math.random().toString(36).slice(2)}`);
    mkdirSync(dir);
    for (const name of ["../escape.txt", "/etc/passwd", ".bashrc", "..", "a\u001b[2Jb", ""]) {
      const r = await mcpx(sb, ["exec", "--artifacts", dir, `await artifact(${JSON.stringify(name)}, "x")`]);
      expectExit(r, 1);
      expect(r.stderr).toContain("ArtifactError");
      expect(r.stderr).toContain("an artifact name is one file name: 1 to 255 bytes, no");
    }
    expect(existsSync(join(sb.dir, "escape.txt"))).toBe(false);
    // a MIME type becomes a header on the daemon: one that could split a header is refused here
    const mime = await mcpx(sb, ["exec", 'await artifact("x.html", "<p>", { mime: "text/html\\r\\nset-cookie: a=b" })']);
    expectExit(mime, 1);
    expect(mime.stderr).toContain("is not a MIME type: type/subtype with optional parameters");
    const typed = await mcpx(sb, ["exec", 'await artifact("x.json", { not: "bytes" })']);
    expectExit(typed, 1);
    expect(typed.stderr).toContain("artifact(name, data, { mime }): data is a string, a Uint8Array, an ArrayBuffer, a Blob or a ReadableStream");
  }, 60_000);

  test("--delivery stream: each artifact's bytes follow end in order, chunk by chunk, and the guard accepts them", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", "--delivery", "stream", MAKE_THREE]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect([...frameOrderProblems(frames), ...productGuardProblems(frames)]).toEqual([]);
    const end = frames.findIndex((f) => f.type === "end");
    const after = frames.slice(end + 1);
    expect(after.every((f) => f.type === "artifact.chunk" || f.type === "artifact.end")).toBe(true);
    const arts = frames.filter((f) => f.type === "artifact") as ArtifactFrame[];
    for (const a of arts) {
      const chunks = after.filter((f) => f.type === "artifact.chunk" && f.id === a.id) as Array<Frame & { seq: number; data: string }>;
      expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
      expect(Buffer.concat(chunks.map((c) => Buffer.from(c.data, "base64"))).equals(EXPECTED[a.name]!)).toBe(true);
      expect(after.filter((f) => f.type === "artifact.end" && f.id === a.id)).toHaveLength(1);
    }
  }, 60_000);

  test("the script point's onSuccess, onError and suffix hooks get the artifacts in their payload", async () => {
    const save = (phase: string) => join(sb.dir, `payload-${phase}-${Math.random().toString(36).slice(2)}.json`);
    const files = { onSuccess: save("onSuccess"), suffix: save("suffix"), onError: save("onError") };
    const hooks = Object.entries(files).map(([phase, file]) => ({ name: `keep-${phase}`, on: "script", phase, run: ["sh", "-c", `cat > ${file}`] }));
    expectExit(await mcpx(sb, ["exec", "--hooks", JSON.stringify(hooks), 'await artifact("a.txt", "A")']), 0);
    for (const phase of ["onSuccess", "suffix"] as const)
      expect(JSON.parse(readFileSync(files[phase], "utf8")).artifacts).toEqual([expect.objectContaining({ name: "a.txt", size: 1 })]);
    const failed = await mcpx(sb, ["exec", "--hooks", JSON.stringify(hooks), 'await artifact("b.txt", "B"); throw new Error("after the artifact")']);
    expectExit(failed, 1);
    expect(JSON.parse(readFileSync(files.onError, "utf8")).artifacts).toEqual([expect.objectContaining({ name: "b.txt", size: 1 })]);
  }, 60_000);

  test("an artifact begun and never finished is said, not kept; one over exec.artifactsMax is refused and not kept", async () => {
    const unfinished = await mcpx(sb, ["exec", "--json", 'void artifact("slow.txt", new ReadableStream({ start(c) { c.enqueue("part") } })); return 1']);
    expectExit(unfinished, 0);
    const env = JSON.parse(unfinished.stdout);
    expect(env.artifacts).toEqual([]);
    expect(env.logs.map((l: { message: string }) => l.message)).toContain('artifact "slow.txt" was not finished when the script ended: it was not kept');
    const over = await mcpx(sb, ["exec", "--exec-artifacts-max", "1", 'await artifact("big.bin", new Uint8Array(2 * 1024 * 1024))']);
    expectExit(over, 1);
    expect(over.stderr).toContain('artifact("big.bin"): the run\'s artifacts would pass exec.artifactsMax (1048576 bytes); it was not kept');
  }, 60_000);
});
