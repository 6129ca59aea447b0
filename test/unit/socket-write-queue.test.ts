// SocketWriteQueue: what a socket does not take at once is kept, in order, and sent on drain.

import { describe, expect, test } from "bun:test";
import { SocketWriteQueue } from "../../lib/util/socket-write-queue.ts";

/** a socket that takes at most `room` bytes until it is given more */
function fakeSocket(room: number) {
  const got: number[] = [];
  return {
    got,
    room,
    closed: false,
    write(given: string | Uint8Array): number {
      if (this.closed) return -1;
      // as a Bun socket does: a string is written as its UTF-8 bytes, and the count is of bytes
      const data = typeof given === "string" ? new TextEncoder().encode(given) : given;
      const n = Math.min(this.room, data.byteLength);
      got.push(...data.subarray(0, n));
      this.room -= n;
      return n;
    },
  };
}

const text = (bytes: number[]) => new TextDecoder().decode(new Uint8Array(bytes));

describe("SocketWriteQueue", () => {
  test("a write the socket takes whole leaves nothing queued", () => {
    const s = fakeSocket(100);
    const q = new SocketWriteQueue(s);
    q.write("hello\n");
    expect(text(s.got)).toBe("hello\n");
  });

  test("what a write does not take is sent on drain, before anything written later", () => {
    const s = fakeSocket(3);
    const q = new SocketWriteQueue(s);
    q.write("abcdef");
    q.write("ghi");
    expect(text(s.got)).toBe("abc");
    s.room = 4;
    q.drain();
    expect(text(s.got)).toBe("abcdefg");
    q.write("jk"); // still behind "hi": it must not jump the queue
    expect(text(s.got)).toBe("abcdefg");
    s.room = 100;
    q.drain();
    expect(text(s.got)).toBe("abcdefghijk");
  });

  test("a megabyte through a socket that takes 1000 bytes per drain arrives whole and in order", () => {
    const s = fakeSocket(0);
    const q = new SocketWriteQueue(s);
    const parts = Array.from({ length: 100 }, (_, i) => `${i}:${"x".repeat(10_000)}\n`);
    for (const p of parts) q.write(p);
    for (let i = 0; i < 2000 && s.got.length < parts.join("").length; i++) {
      s.room = 1000;
      q.drain();
    }
    expect(text(s.got)).toBe(parts.join(""));
  });

  test("multi-byte characters split by a partial write are not corrupted", () => {
    const s = fakeSocket(1);
    const q = new SocketWriteQueue(s);
    q.write("é→😀");
    for (let i = 0; i < 20; i++) {
      s.room = 1;
      q.drain();
    }
    expect(text(s.got)).toBe("é→😀");
  });

  test("a closed socket drops what is queued instead of looping", () => {
    const s = fakeSocket(2);
    const q = new SocketWriteQueue(s);
    q.write("abcdef");
    s.closed = true;
    q.drain();
    q.write("more");
    expect(text(s.got)).toBe("ab");
  });
});
