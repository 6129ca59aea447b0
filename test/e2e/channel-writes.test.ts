// Nothing lost on the way between the host and the script: answers larger than a socket
// takes at once reach the script whole (Bun sockets do not buffer; the host used to drop what a write
// did not take, and every run with more than ~214 KB of answers in flight hung until its timeout),
// everything a script prints before process.exit() is delivered (Bun's stdout writer finished a write
// to a full pipe later, after the exit), and an answer over mcp.maxMessage is named as such.
// Every run carries --timeout, so a regression is a failure with exit 124, not a stuck suite.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, parseFrames, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

const hashOf = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

describe("answers of any size reach the script", () => {
  for (const size of [300_000, 2_000_000]) {
    test(`an echo of ${size} bytes comes back whole, on Bun, Deno and Node`, async () => {
      for (const runtime of ["bun", "deno", "node"]) {
        // the message is not all one character, so a lost or repeated piece changes the hash
        const snippet = `const m = Array.from({ length: ${size} }, (_, i) => String.fromCharCode(97 + (i * 7) % 26)).join("");
const back = await fake.echo({ message: m });
console.log(back === m, back.length);`;
        const r = await mcpx(sb, ["exec", "--runtime", runtime, "--timeout", "40s", snippet]);
        expectExit(r, 0);
        expect(r.stdout.trim()).toBe(`true ${size}`);
      }
    });
  }

  test("1000 concurrent calls of 100 KB each each get their own answer", async () => {
    const snippet = `const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => fake.echo({ message: i + ":" + "y".repeat(100_000) })));
console.log(answers.filter((a, i) => a === i + ":" + "y".repeat(100_000)).length);`;
    const r = await mcpx(sb, ["exec", "--timeout", "60s", snippet]);
    expectExit(r, 0);
    expect(r.stdout.trim()).toBe("1000");
    // the SDK's one-drain-listener-per-blocked-write must not leak onto the user's terminal
    expect(r.stderr).not.toContain("MaxListenersExceededWarning");
  });
});

describe("process.exit() loses nothing", () => {
  const printThenExit = 'const l = "z".repeat(1023); for (let i = 0; i < 5000; i++) console.log(l); log("last"); process.exit(0);';

  test("5 MB printed right before process.exit() all reaches stdout", async () => {
    const r = await mcpx(sb, ["exec", "--timeout", "40s", printThenExit]);
    expectExit(r, 0);
    expect(r.stdout.length).toBe(5000 * 1024);
    expect(hashOf(r.stdout)).toBe(hashOf(("z".repeat(1023) + "\n").repeat(5000)));
    expect(r.stderr).toContain("last");
  });

  test("with --output stream the last log frame written before process.exit() is there", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", "--timeout", "40s", printThenExit]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    const stdout = frames
      .filter((f) => f.type === "stdout")
      .map((f) => String(f.data))
      .join("");
    expect(stdout.length).toBe(5000 * 1024);
    expect(frames.some((f) => f.type === "log" && f.message === "last")).toBe(true);
  });
});

describe("mcp.maxMessage", () => {
  test("an answer over mcp.maxMessage fails naming the setting and the size, and the next call works", async () => {
    const snippet = `try { await fake.echo({ message: "x".repeat(300_000) }); } catch (e) { console.log("caught: " + e.message); }
console.log(await fake.echo({ message: "small" }));`;
    const r = await mcpx(sb, ["exec", "--mcp-max-message", "100000", "--timeout", "40s", snippet]);
    expectExit(r, 0);
    expect(r.stdout).toContain("exceeded mcp.maxMessage (100000 bytes)");
    expect(r.stdout.trim().split("\n").at(-1)).toBe("small");
  });

  test("the default reads an answer of 12 MB, past the SDK's own 10 MB limit", async () => {
    const r = await mcpx(sb, ["exec", "--timeout", "60s", 'console.log((await fake.echo({ message: "q".repeat(12_000_000) })).length)']);
    expectExit(r, 0);
    expect(r.stdout.trim()).toBe("12000000");
  });
});
