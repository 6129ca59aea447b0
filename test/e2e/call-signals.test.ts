// `mcpx call` interrupted: SIGINT or SIGTERM ends the call with 130 (docs/exit-codes.md), tells the
// server the request is cancelled and ends the server, also when mcpx was started with SIGINT
// ignored (what a shell does to a job it puts in the background).

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedCalls, recordedCancels } from "../../fixtures/servers/record.ts";
import { exitCodeOf } from "../../lib/errors/codes.ts";
import { fakeServer, MCPX, sandbox } from "./harness.ts";
import { leftoverProcesses, uniqueMarker } from "./support.ts";

/** waits (bounded) until the server has the call */
async function callArrived(record: string): Promise<void> {
  for (let waited = 0; recordedCalls(record, "echo").length === 0; waited += 20) {
    if (waited > 20_000) throw new Error("the call never reached the server");
    await Bun.sleep(20);
  }
}

describe("mcpx call, interrupted", () => {
  test.each([
    ["SIGTERM", false],
    ["SIGINT", false],
    ["SIGINT", true],
  ] as const)("%s (SIGINT ignored at start: %p) exits 130, cancels the call upstream and ends the server", async (signal, ignored) => {
    const sb = sandbox();
    const record = join(sb.dir, "record.jsonl");
    const marker = uniqueMarker("call-signal");
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { fake: fakeServer({ FAKE_MCP_HANG_TOOL: "echo", FAKE_MCP_RECORD: record, MARKER: marker }) } }));
    // `trap "" INT` then exec: mcpx starts with SIGINT ignored, as a backgrounded job of a script does
    const argv = ignored ? ["sh", "-c", `trap "" INT; exec "$0" "$@"`, MCPX, "call", "fake.echo", "message=hi"] : [MCPX, "call", "fake.echo", "message=hi"];
    const proc = Bun.spawn(argv, { cwd: sb.dir, env: { ...sb.env, MARKER: marker }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      await callArrived(record);
      proc.kill(signal);
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toMatchObject({ code: exitCodeOf("INTERRUPTED") });
      expect(stderr).toMatch(/^mcpx call: interrupted/);
      expect(recordedCancels(record).map((c) => c.tool)).toEqual(["echo"]);
      expect(await leftoverProcesses(marker)).toEqual([]);
    } finally {
      proc.kill("SIGKILL");
    }
  });
});
