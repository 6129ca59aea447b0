// Utf8Pieces: stdout pieces cut at character boundaries; `bytes` only where `data` lost something.

import { describe, expect, test } from "bun:test";
import { incompleteTail, latin1Bytes, latin1Text, latin1ToUtf8, Utf8Pieces, type StdoutPiece } from "../../lib/runtime/stdout-bytes.ts";

const bytesOf = (pieces: Array<StdoutPiece | undefined>) =>
  Buffer.concat(
    pieces.filter((p): p is StdoutPiece => p !== undefined).map((p) => (p.bytes !== undefined ? Buffer.from(p.bytes, "base64") : Buffer.from(p.data, "utf8"))),
  );

describe("incompleteTail", () => {
  test("counts the bytes of a character that is not complete yet", () => {
    const euro = Buffer.from("€"); // e2 82 ac
    expect(incompleteTail(euro)).toBe(0);
    expect(incompleteTail(euro.subarray(0, 1))).toBe(1);
    expect(incompleteTail(euro.subarray(0, 2))).toBe(2);
    expect(incompleteTail(Buffer.from("a"))).toBe(0);
    expect(incompleteTail(Buffer.from([0x61, 0xf0, 0x9f, 0x98]))).toBe(3);
  });

  test("an invalid byte is not held for a completion that cannot come", () => {
    expect(incompleteTail(Buffer.from([0xff]))).toBe(0);
    expect(incompleteTail(Buffer.from([0x80]))).toBe(0);
  });
});

describe("Utf8Pieces", () => {
  test("UTF-8 text cut anywhere comes out as text only, whole characters per piece", () => {
    const text = Buffer.from("héllo wörld — 😀 ok");
    for (let size = 1; size <= 5; size++) {
      const p = new Utf8Pieces();
      const pieces: Array<StdoutPiece | undefined> = [];
      for (let i = 0; i < text.length; i += size) pieces.push(p.push(text.subarray(i, i + size)));
      pieces.push(p.flush());
      expect(pieces.every((x) => x === undefined || x.bytes === undefined)).toBe(true);
      expect(pieces.map((x) => x?.data ?? "").join("")).toBe(text.toString());
    }
  });

  test("bytes that are not UTF-8 come back exactly, through `bytes`", () => {
    const raw = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41, 0xc3]);
    for (let size = 1; size <= 6; size++) {
      const p = new Utf8Pieces();
      const pieces: Array<StdoutPiece | undefined> = [];
      for (let i = 0; i < raw.length; i += size) pieces.push(p.push(raw.subarray(i, i + size)));
      pieces.push(p.flush());
      expect(bytesOf(pieces).equals(raw)).toBe(true);
    }
  });

  test("a U+FFFD the script wrote itself is text, not lost bytes", () => {
    expect(new Utf8Pieces().push(Buffer.from("a\uFFFDb"))).toEqual({ data: "a\uFFFDb" });
  });
});

describe("fd 1 read as latin-1", () => {
  test("every byte is one char of the same code, and back (0x80 stays U+0080, not windows-1252's €)", () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const text = latin1Text(all.subarray(1)); // a view into a larger buffer, as a stream's chunk can be
    expect([...text].map((c) => c.charCodeAt(0))).toEqual([...all.subarray(1)]);
    expect([...latin1Bytes(text)]).toEqual([...all.subarray(1)]);
  });

  test("a frame's JSON comes back as the UTF-8 text written, ASCII or not", () => {
    for (const json of ['{"t":"emit","v":"plain"}', '{"t":"emit","v":"é😀→ü"}', '{"t":"emit","v":"\\u00e9"}']) {
      expect(latin1ToUtf8(latin1Text(Buffer.from(json, "utf8")))).toBe(json);
    }
  });
});
