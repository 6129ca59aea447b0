// A call's arguments reach the server as the launcher's safeJson writes them, whatever the script
// passed: the launcher writes a call frame's envelope itself and gives only the arguments to safeJson
// (launcher/handoff.ts callFrame, docs/decisions/0011), so these pin that the frame is still the one
// JSON.stringify-with-replacer wrote: bigint as text, a repeated object as "[Circular]", an Error as
// {name, message, …}, undefined and functions as JSON has them, no arguments as {}, and characters
// outside ASCII intact. On Bun and on Deno, whose launchers share the code.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
const record = join(sb.dir, "calls.jsonl");
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) } });

// each call is allowed to fail the server's own check of its arguments: only what reached it matters
const snippet = `const shared = { k: 1 };
await Promise.allSettled([
  fake.echo({ message: "plain", n: 1.5, ok: true, none: null, list: [1, "é😀"] }),
  fake.echo({ message: "odd", big: 10n, gone: undefined, fn: function named() {}, again: [shared, shared], err: new Error("boom") }),
  fake.echo(),
  tools.fake.echo({ message: "ü→" }),
]);`;

describe("a call's arguments arrive as safeJson writes them", () => {
  for (const runtime of ["bun", "deno"]) {
    test(`on ${runtime}`, async () => {
      const before = recordedCalls(record, "echo").length;
      const r = await mcpx(sb, ["exec", "--runtime", runtime, "--timeout", "40s", snippet]);
      expectExit(r, 0);
      const args = recordedCalls(record, "echo")
        .slice(before)
        .map((c) => c.args);
      expect(args).toHaveLength(4);
      expect(args[0]).toEqual({ message: "plain", n: 1.5, ok: true, none: null, list: [1, "é😀"] });
      const odd = args[1] as Record<string, unknown>;
      expect(odd.message).toBe("odd");
      expect(odd.big).toBe("10");
      expect("gone" in odd).toBe(false);
      expect(odd.fn).toBe("[Function named]");
      // the replacer sees the shared object a second time and says so, as it did for the whole frame
      expect(odd.again).toEqual([{ k: 1 }, "[Circular]"]);
      expect(odd.err).toMatchObject({ name: "Error", message: "boom" });
      expect(args[2]).toEqual({});
      expect(args[3]).toEqual({ message: "ü→" });
    });
  }
});
