// The guard for the event-kind table: one run through the binary publishes every kind in
// lib/events/kinds.ts, as seen by an observe hook on "*". A kind nothing publishes fails here.

import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_KIND_NAMES } from "../../lib/events/kinds.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

test("a run publishes every declared event kind, and an observe hook on * sees each", async () => {
  const sb = sandbox();
  const seen = join(sb.dir, "events.ndjson");
  writeConfig(sb, ".mcpx.json", {
    mcpServers: { fake: fakeServer({ FAKE_MCP_LIST_CHANGED: "1" }), crashy: fakeServer({ FAKE_MCP_CRASH_ON: "slow" }) },
    hooks: [
      { name: "see-all", on: "*", phase: "observe", run: ["sh", "-c", 'cat >> "$0"; echo >> "$0"', seen] },
      // a failing hook publishes hook.failed; failure open, so the call goes on
      { name: "broken-guard", on: "call", phase: "before", when: { tool: "json_text" }, run: ["sh", "-c", "exit 1"] },
    ],
  });
  const script = [
    'await fake.echo({ message: "hi" })', // server.started, call.finished
    "await fake.touch_tools()", // tools.changed
    "await fake.json_text()", // hook.failed
    "await crashy.slow({ ms: 1 }).catch(() => {})", // server.stopped (the server exits)
    "await Bun.sleep(300)", // the notifications and the exit reach mcpx before the run ends
  ].join("; ");
  const r = await mcpx(sb, ["exec", script]); // script.started, script.finished
  expectExit(r, 0);
  expect(existsSync(seen)).toBe(true);
  const kinds = new Set(readFileSync(seen, "utf8").split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { event: { kind: string } }).event.kind));
  expect(EVENT_KIND_NAMES.filter((k) => !kinds.has(k))).toEqual([]);
});
