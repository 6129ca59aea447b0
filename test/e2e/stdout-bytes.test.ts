// A script's stdout is bytes: what it writes (a binary file, latin-1 text) reaches `> f` exactly, on
// every runtime and through --remote and /v1/exec's text answer. Frames stay text: a stdout frame
// whose bytes are not UTF-8 carries them in `bytes` (base64) beside the lossy `data`.

import { afterAll, describe, expect, test } from "bun:test";
import { MCPX, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { expectExit, mcpx, parseFrames, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {});
afterAll(stopDaemons);

// every byte value, then text: the bytes a binary writer would send
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const SNIPPET = `process.stdout.write(new Uint8Array(Array.from({ length: 256 }, (_, i) => i))); console.log("then text é")`;
const EXPECTED = Buffer.concat([ALL_BYTES, Buffer.from("then text é\n")]);

/** mcpx with stdout read as bytes */
async function stdoutBytes(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: Buffer }> {
  const proc = Bun.spawn([MCPX, ...args], { cwd: sb.dir, env: { ...sb.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), proc.exited]);
  return { code, out: Buffer.from(out) };
}

/** how many bytes mcpx put on stdout and on stderr, both read through pipes */
async function byteCounts(args: string[]): Promise<{ code: number; out: number; err: number }> {
  const proc = Bun.spawn([MCPX, ...args], { cwd: sb.dir, env: sb.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).arrayBuffer(), proc.exited]);
  return { code, out: out.byteLength, err: err.byteLength };
}

// more than a pipe holds many times over: Bun's own process.stdout delivered 438,528 of these bytes
const FIVE_MB = 5 * 1024 * 1024;

describe("stdout keeps the script's bytes", () => {
  for (const runtime of ["bun", "deno", "node"]) {
    test(`all 256 byte values written on ${runtime} reach stdout unchanged`, async () => {
      const r = await stdoutBytes(["exec", "--runtime", runtime, SNIPPET]);
      expect(r.code).toBe(0);
      expect(r.out.equals(EXPECTED)).toBe(true);
    });
  }

  test("a stdout frame carries the exact bytes in `bytes` only where they are not UTF-8", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", SNIPPET]);
    expectExit(r, 0);
    const stdout = parseFrames(r.stdout).filter((f) => f.type === "stdout");
    const bytes = Buffer.concat(stdout.map((f) => (f.bytes !== undefined ? Buffer.from(String(f.bytes), "base64") : Buffer.from(String(f.data)))));
    expect(bytes.equals(EXPECTED)).toBe(true);
    // the binary write and the text may be read together or apart: a frame with `bytes` is never valid UTF-8
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    for (const f of stdout.filter((f) => f.bytes !== undefined)) expect(() => utf8.decode(Buffer.from(String(f.bytes), "base64"))).toThrow();
    // and text alone, non-ASCII included, never carries them
    const text = await mcpx(sb, ["exec", "--output", "stream", 'console.log("only text é"); process.stdout.write("more ü\\n")']);
    expectExit(text, 0);
    const frames = parseFrames(text.stdout).filter((f) => f.type === "stdout");
    expect(frames.map((f) => String(f.data)).join("")).toBe("only text é\nmore ü\n");
    expect(frames.filter((f) => f.bytes !== undefined)).toEqual([]);
  });

  test("through --remote and /v1/exec's text answer too", async () => {
    const daemon = await startDaemon(sb);
    const remote = await stdoutBytes(["exec", "--remote", SNIPPET]);
    expect(remote.code).toBe(0);
    expect(remote.out.equals(EXPECTED)).toBe(true);
    const res = await daemon.fetch("/v1/exec", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: SNIPPET, output: "text" }),
    });
    expect(Buffer.from(await res.arrayBuffer()).equals(EXPECTED)).toBe(true);
  });
});

describe("every write to stdout or stderr is complete when process.exit returns", () => {
  for (const runtime of ["bun", "deno", "node"]) {
    test(`5 MB through process.stdout.write and process.exit right after all arrive on ${runtime}`, async () => {
      const r = await byteCounts(["exec", "--runtime", runtime, `process.stdout.write("y".repeat(${FIVE_MB})); process.exit(0)`]);
      expect(r).toEqual({ code: 0, out: FIVE_MB, err: 0 });
    });
  }

  test("5 MB through process.stderr.write and process.exit right after all arrive on bun", async () => {
    const r = await byteCounts(["exec", `process.stderr.write("y".repeat(${FIVE_MB})); process.exit(0)`]);
    expect(r).toEqual({ code: 0, out: 0, err: FIVE_MB });
  });

  // Bun's other ways to fd 1: each one is the same native FileSink that dropped what it held at exit
  for (const [api, snippet] of [
    ["Bun.stdout.writer()", `Bun.stdout.writer().write("y".repeat(${FIVE_MB}))`],
    ["Bun.file(1).writer()", `Bun.file(1).writer().write(new TextEncoder().encode("y".repeat(${FIVE_MB})))`],
    ["an unawaited Bun.write(Bun.stdout)", `void Bun.write(Bun.stdout, "y".repeat(${FIVE_MB}))`],
  ]) {
    test(`5 MB through ${api} and process.exit right after all arrive`, async () => {
      const r = await byteCounts(["exec", `${snippet}; process.exit(0)`]);
      expect(r).toEqual({ code: 0, out: FIVE_MB, err: 0 });
    });
  }

  test("process.stdout.write keeps its order with console.log and calls its callback on bun", async () => {
    const r = await mcpx(sb, [
      "exec",
      'process.stdout.write("a\\n"); console.log("b"); await new Promise((done) => process.stdout.write("c\\n", done)); console.log("d")',
    ]);
    expectExit(r, 0);
    expect(r.stdout).toBe("a\nb\nc\nd\n");
  });
});
