// Utf8Pieces: stdout pieces cut at character boundaries; `bytes` only where `data` lost something.

import { describe, expect, test } from "bun:test";
import { incompleteTail, Utf8Pieces, type StdoutPiece } from "../../lib/exec/stdout-bytes.ts";

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
