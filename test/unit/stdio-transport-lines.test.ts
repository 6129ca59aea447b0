// StdioTransport's line reader, through a real child process: each line is one message as it was
// written, whatever chunks the pipe cut it into (a line of many chunks, characters split between
// chunks, several lines in one chunk), and a line that is not a message is said and the next is read.

import { expect, test } from "bun:test";
import { StdioTransport } from "../../lib/mcp/stdio-transport.ts";

// ~1 MB on one line: many pipe chunks, with characters cut between them
const BIG = `{ jsonrpc: "2.0", id: 1, result: { text: "é😀→".repeat(100_000) } }`;
const REST = `[2, 3, 4].map((id) => JSON.stringify({ jsonrpc: "2.0", id, result: { n: id, s: "ü" } })).join("\\n") + "\\nnot json\\n"`;

test("every line arrives as the message written, across chunk boundaries and multi-byte characters", async () => {
  // the child makes the lines itself (a megabyte does not fit on a command line) and writes them in one go
  const script = `process.stdout.write(JSON.stringify(${BIG}) + "\\n" + ${REST} + JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} }) + "\\n")`;
  const t = new StdioTransport({ command: process.execPath, args: ["-e", script], env: { BUN_BE_BUN: "1" }, maxBufferSize: 64 * 1024 * 1024 });
  const big = { jsonrpc: "2.0", id: 1, result: { text: "é😀→".repeat(100_000) } };
  const small = [2, 3, 4].map((id) => ({ jsonrpc: "2.0", id, result: { n: id, s: "ü" } }));
  const got: unknown[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e.message);
  const closed = new Promise<void>((resolve) => (t.onclose = resolve));
  await t.start();
  await closed;
  expect(got).toEqual([big, ...small, { jsonrpc: "2.0", id: 5, result: {} }]);
  expect(errors.length).toBe(1);
});
