// A request line over the limit, as `mcpx serve` reads it: the LineReader skips it without holding it,
// whatever chunks it comes in, keeps its two ends, and reads the next line; idOfCutMessage finds the
// id at either end, and only the message's own id (never one inside params, never one that may be cut).

import { describe, expect, test } from "bun:test";
import { LONG_LINE_EDGE, LineReader, type LongLine } from "../../lib/mcp/line-reader.ts";
import { idOfCutMessage } from "../../lib/mcpserver/long-request.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

/** pushes `text` in pieces of `size` bytes through a skipping reader of limit `max` */
function read(text: string, max: number, size: number): { lines: string[]; long: LongLine[] } {
  const lines: string[] = [];
  const long: LongLine[] = [];
  const r = new LineReader(max, (l) => lines.push(l), { skip: (l) => long.push(l) });
  const all = bytes(text);
  for (let at = 0; at < all.byteLength; at += size) expect(r.push(all.subarray(at, at + size))).toBe(true);
  return { lines, long };
}

describe("LineReader with {skip}", () => {
  const big = `{"id":1,"pad":"${"a".repeat(20_000)}","end":"${"z".repeat(10)}"}`;
  const text = `{"n":0}\n${big}\n{"n":2}\n`;
  for (const size of [1, 7, 4096, 65536, text.length]) {
    test(`a line over the limit is skipped with its length and ends, and the lines around it are read (chunks of ${size} bytes)`, () => {
      const { lines, long } = read(text, 1000, size);
      expect(lines).toEqual(['{"n":0}', '{"n":2}']);
      expect(long).toHaveLength(1);
      expect(long[0]!.bytes).toBe(big.length);
      expect(long[0]!.head).toBe(big.slice(0, LONG_LINE_EDGE));
      expect(long[0]!.tail).toBe(big.slice(-LONG_LINE_EDGE));
    });
  }

  test("two long lines in a row are each reported, and a line exactly at the limit is read", () => {
    const { lines, long } = read(`${"b".repeat(11)}\n${"c".repeat(12)}\n${"d".repeat(10)}\n`, 10, 3);
    expect(long.map((l) => [l.bytes, l.head])).toEqual([
      [11, "b".repeat(11)],
      [12, "c".repeat(12)],
    ]);
    expect(lines).toEqual(["d".repeat(10)]);
  });

  test("without {skip}, a long line still stops reading (the upstream reader)", () => {
    let over = 0;
    const lines: string[] = [];
    const r = new LineReader(
      5,
      (l) => lines.push(l),
      () => over++,
    );
    expect(r.push(bytes("ok\n123456\nafter\n"))).toBe(false);
    expect(r.push(bytes("more\n"))).toBe(false);
    expect([lines, over]).toEqual([["ok"], 1]);
  });
});

describe("idOfCutMessage", () => {
  const cut = (line: string) => idOfCutMessage(line.slice(0, 60), line.slice(-60));
  const pad = "p".repeat(200);
  test.each([
    ["an id first", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":"${pad}"}}`, 5],
    ["a string id first, after spaces", `{ "jsonrpc" : "2.0" , "id" : "a\\"b" , "params":{"x":"${pad}"}}`, 'a"b'],
    ["an id last, as the SDK writes it", `{"method":"tools/call","params":{"x":"${pad}"},"jsonrpc":"2.0","id":42}`, 42],
    ["a string id last, with a line's \\r", `{"method":"m","params":{"x":"${pad}"},"id":"req-1"}\r`, "req-1"],
  ])("%s is read", (_, line, id) => {
    expect(cut(line)).toBe(id);
  });

  test.each([
    ["a notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"x":"${pad}"}}`],
    ["an id inside params at the end", `{"jsonrpc":"2.0","method":"m","params":{"x":"${pad}","id":3}}`],
    ["an id inside params at the start", `{"params":{"id":3,"x":"${pad}"},"method":"m"}`],
    ["a batch", `[{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":"${pad}"}}]`],
    ["a fractional id", `{"method":"m","params":{"x":"${pad}"},"id":1.5}`],
    ["not JSON at all", "x".repeat(300)],
  ])("%s has no id", (_, line) => {
    expect(cut(line)).toBeUndefined();
  });

  test("a number at the very end of the kept head may be cut, so it is not taken for the id", () => {
    expect(idOfCutMessage('{"jsonrpc":"2.0","id":12', "…")).toBeUndefined();
    expect(idOfCutMessage('{"jsonrpc":"2.0","id":12,', "…")).toBe(12);
  });
});
