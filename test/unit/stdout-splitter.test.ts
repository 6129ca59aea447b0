// StdoutSplitter: the launcher's fd 1 is plain text with frames (RS + nonce + JSON + "\n") mixed in,
// and the pipe may cut it anywhere. Whatever the chunking, the same frames and the same text must
// come out, in the same order, and no byte may be lost. Text may be passed on in more pieces than it
// arrived in, so pieces are compared after joining adjacent text.

import { describe, expect, test } from "bun:test";
import { StdoutSplitter, type Piece } from "../../lib/runtime/stdout-splitter.ts";

const NONCE = "n0Nc3";
const RS = "\x1e";
const frame = (body: Record<string, unknown>) => RS + NONCE + JSON.stringify(body) + "\n";

/** adjacent text pieces joined and empty ones dropped: the shape every chunking must agree on */
function normalize(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (p.kind === "text" && p.data === "") continue;
    if (p.kind === "text" && last?.kind === "text") out[out.length - 1] = { kind: "text", data: last.data + p.data };
    else out.push(p);
  }
  return out;
}

function feed(chunks: string[]): Piece[] {
  const s = new StdoutSplitter(NONCE);
  return normalize([...chunks.flatMap((c) => s.push(c)), ...s.end()]);
}

/** a deterministic PRNG (mulberry32), so a failing chunking can be replayed */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChunks(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * 12);
    chunks.push(text.slice(i, i + n));
    i += n;
  }
  return chunks;
}

const f1 = { type: "log", level: "info", message: "a line\nwith a newline and \u001e a record separator" };
const f2 = { type: "call", server: "s", tool: "t", ok: true };
const f3 = { type: "emit", value: { nested: [1, "two", null] } };
const STREAM = "hello " + frame(f1) + "world\nmore é😀 " + RS + "not-the-nonce\n" + frame(f2) + frame(f3) + "tail" + RS + NONCE.slice(0, 2);
const EXPECTED: Piece[] = [
  { kind: "text", data: "hello " },
  { kind: "frame", body: f1 },
  { kind: "text", data: "world\nmore é😀 " + RS + "not-the-nonce\n" },
  { kind: "frame", body: f2 },
  { kind: "frame", body: f3 },
  { kind: "text", data: "tail" + RS + NONCE.slice(0, 2) },
];

describe("chunk boundaries", () => {
  test("the whole stream in one chunk splits into text and frames", () => {
    expect(feed([STREAM])).toEqual(EXPECTED);
  });

  test("one character at a time gives the same pieces", () => {
    expect(feed([...STREAM.split("")])).toEqual(EXPECTED);
  });

  test("every single cut point gives the same pieces", () => {
    for (let i = 0; i <= STREAM.length; i++) expect(feed([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(EXPECTED);
  });

  test("every pair of cut points gives the same pieces", () => {
    // every way of cutting a frame and its marker into three, including empty chunks
    const s = "x" + frame(f2) + "y" + frame(f3);
    const want = feed([s]);
    for (let i = 0; i <= s.length; i++) for (let j = i; j <= s.length; j++) expect(feed([s.slice(0, i), s.slice(i, j), s.slice(j)])).toEqual(want);
  });

  test("500 random chunkings give the same pieces", () => {
    const random = rng(42);
    for (let n = 0; n < 500; n++) expect(feed(randomChunks(STREAM, random))).toEqual(EXPECTED);
  });

  test("nothing is lost: the text pieces and re-encoded frames rebuild the stream", () => {
    const random = rng(7);
    const rebuilt = feed(randomChunks(STREAM, random))
      .map((p) => (p.kind === "text" ? p.data : frame(p.body)))
      .join("");
    expect(rebuilt).toBe(STREAM);
  });
});

describe("text around frames", () => {
  test("text without a newline right before a frame is its own piece", () => {
    expect(feed(["abc" + frame(f2)])).toEqual([
      { kind: "text", data: "abc" },
      { kind: "frame", body: f2 },
    ]);
  });

  test("plain text is passed on as soon as it arrives, not held for a newline", () => {
    const s = new StdoutSplitter(NONCE);
    expect(s.push("progress 10%")).toEqual([{ kind: "text", data: "progress 10%" }]);
  });

  test("only a tail that could start the marker is held back, and released when it is not one", () => {
    const s = new StdoutSplitter(NONCE);
    expect(s.push("abc" + RS + NONCE.slice(0, 3))).toEqual([{ kind: "text", data: "abc" }]);
    expect(normalize(s.push("X rest"))).toEqual([{ kind: "text", data: RS + NONCE.slice(0, 3) + "X rest" }]);
  });

  test("a frame still arriving is held, and the text before it is not", () => {
    const s = new StdoutSplitter(NONCE);
    const whole = frame(f2);
    expect(s.push("before" + whole.slice(0, 10))).toEqual([{ kind: "text", data: "before" }]);
    expect(s.push(whole.slice(10))).toEqual([{ kind: "frame", body: f2 }]);
  });

  test("a marker-like prefix that is not the marker stays text", () => {
    for (const fake of [RS + "n0Nc4" + JSON.stringify(f2) + "\n", RS + RS + "x\n", NONCE + JSON.stringify(f2) + "\n", RS + NONCE.toUpperCase() + "{}\n"]) {
      expect(feed([fake])).toEqual([{ kind: "text", data: fake }]);
      expect(feed(fake.split(""))).toEqual([{ kind: "text", data: fake }]);
    }
  });

  test("a record separator right before a real marker is text, and the frame still parses", () => {
    expect(feed([RS, RS + NONCE + '{"a":1}\n'])).toEqual([
      { kind: "text", data: RS },
      { kind: "frame", body: { a: 1 } },
    ]);
  });

  test("invalid JSON after the marker is passed on as text, byte for byte, and later frames still parse", () => {
    const bad = RS + NONCE + "{not json\n";
    expect(feed([bad + frame(f2)])).toEqual([
      { kind: "text", data: bad },
      { kind: "frame", body: f2 },
    ]);
    expect(feed((bad + frame(f2)).split(""))).toEqual([
      { kind: "text", data: bad },
      { kind: "frame", body: f2 },
    ]);
  });

  test("a marker followed by JSON that is not an object is text, not a frame", () => {
    // a frame body is a JSON object; today "null", "42" or "[]" after the marker become frames with
    // a non-object body, which a consumer reading body.type would crash on
    for (const json of ["null", "42", '"s"', "[1]"]) {
      const raw = RS + NONCE + json + "\n";
      expect(feed([raw])).toEqual([{ kind: "text", data: raw }]);
    }
  });

  test("a frame cut off by the end of the stream comes out as text, so nothing is lost", () => {
    const cut = RS + NONCE + '{"type":"log"';
    expect(feed(["x", cut])).toEqual([{ kind: "text", data: "x" + cut }]);
  });

  test("an empty stream gives nothing", () => {
    expect(feed([])).toEqual([]);
    expect(feed(["", ""])).toEqual([]);
  });

  test("a frame of 8 MB arriving in 64 KB chunks between text comes out whole", () => {
    const big = "x".repeat(8 * 1024 * 1024);
    const stream = "before\n" + frame({ t: "call", id: 1, args: { message: big } }) + "after\n";
    const chunks: string[] = [];
    for (let i = 0; i < stream.length; i += 64 * 1024) chunks.push(stream.slice(i, i + 64 * 1024));
    expect(feed(chunks)).toEqual([
      { kind: "text", data: "before\n" },
      { kind: "frame", body: { t: "call", id: 1, args: { message: big } } },
      { kind: "text", data: "after\n" },
    ]);
  });
});
