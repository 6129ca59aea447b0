// StdioTransport's line reader, through a real child process: each line is one message as it was
// written, whatever chunks the pipe cut it into (a line of many chunks, characters split between
// chunks, several lines in one chunk), and a line that is not a message is said and the next is read.
// Over both channels the transport has: the socket pairs it makes itself, and Bun's pipes.

import { expect, test } from "bun:test";
import { MessageTooLargeError, StdioTransport } from "../../lib/mcp/stdio-transport.ts";
import { loadLibc } from "../../lib/process/libc.ts";

// as a script's lineage opens it before any call (stdio-sockets.ts): without it, pipes whatever is asked
loadLibc();

// ~1 MB on one line: many pipe chunks, with characters cut between them
const BIG = `{ jsonrpc: "2.0", id: 1, result: { text: "é😀→".repeat(100_000) } }`;
const REST = `[2, 3, 4].map((id) => JSON.stringify({ jsonrpc: "2.0", id, result: { n: id, s: "ü" } })).join("\\n") + "\\nnot json\\n"`;

/** runs `script` as the server and reads everything it writes until it exits */
async function readAll(script: string, maxBufferSize: number, pipes: boolean): Promise<{ got: unknown[]; errors: string[]; tooLarge: boolean[] }> {
  const t = new StdioTransport({ command: process.execPath, args: ["-e", script], env: { BUN_BE_BUN: "1" }, maxBufferSize, pipes });
  const got: unknown[] = [];
  const errors: string[] = [];
  const tooLarge: boolean[] = [];
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => {
    errors.push(e.message);
    tooLarge.push(e instanceof MessageTooLargeError);
  };
  const closed = new Promise<void>((resolve) => (t.onclose = resolve));
  await t.start();
  expect(t.channel).toBe(pipes ? "pipes" : "sockets");
  await closed;
  return { got, errors, tooLarge };
}

const line = (id: number) => `JSON.stringify({ jsonrpc: "2.0", id: ${id}, result: {} }) + "\\n"`;

for (const pipes of [false, true]) {
  const over = pipes ? "Bun's pipes" : "socket pairs";
  test(`every line arrives as the message written, across chunk boundaries and multi-byte characters (${over})`, async () => {
    // the child makes the lines itself (a megabyte does not fit on a command line) and writes them in one go
    const { got, errors, tooLarge } = await readAll(`process.stdout.write(JSON.stringify(${BIG}) + "\\n" + ${REST} + ${line(5)})`, 64 * 1024 * 1024, pipes);
    const big = { jsonrpc: "2.0", id: 1, result: { text: "é😀→".repeat(100_000) } };
    const small = [2, 3, 4].map((id) => ({ jsonrpc: "2.0", id, result: { n: id, s: "ü" } }));
    expect(got).toEqual([big, ...small, { jsonrpc: "2.0", id: 5, result: {} }]);
    expect(errors.length).toBe(1);
    // a line that is not JSON is not the over-size signal the pool tells apart by class
    expect(tooLarge).toEqual([false]);
  });

  test(`a line over maxBufferSize is said in the SDK's words, as a MessageTooLargeError, and nothing after it is read (${over})`, async () => {
    const { got, errors, tooLarge } = await readAll(`process.stdout.write(${line(1)} + "x".repeat(300_000) + "\\n" + ${line(2)})`, 100_000, pipes);
    expect(got).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    expect(errors).toEqual(["ReadBuffer exceeded maximum size of 100000 bytes"]);
    expect(tooLarge).toEqual([true]);
  });

  test(`what is sent reaches the server's stdin in order, and close() ends it (${over})`, async () => {
    // the child echoes each line it reads back as a result, and exits at the end of its stdin
    const answer = `JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { echo: m.params.n } }) + "\\n"`;
    const script =
      `let buf = ""; process.stdin.on("data", (d) => { buf += d; let nl; while ((nl = buf.indexOf("\\n")) >= 0) ` +
      `{ const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1); process.stdout.write(${answer}); } });`;
    const t = new StdioTransport({ command: process.execPath, args: ["-e", script], env: { BUN_BE_BUN: "1" }, maxBufferSize: 1_000_000, pipes });
    const got: unknown[] = [];
    let answered!: () => void;
    const all = new Promise<void>((resolve) => (answered = resolve));
    t.onmessage = (m) => {
      got.push(m);
      if (got.length === 200) answered();
    };
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    expect(t.channel).toBe(pipes ? "pipes" : "sockets");
    for (let n = 1; n <= 200; n++) await t.send({ jsonrpc: "2.0", id: n, method: "m", params: { n } });
    await all;
    expect(got).toEqual(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, result: { echo: i + 1 } })));
    await t.close();
    await closed;
    // a send after the close is refused in the SDK's words
    await expect(t.send({ jsonrpc: "2.0", id: 201, method: "m" })).rejects.toThrow("Connection closed");
  });
}
