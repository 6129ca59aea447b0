// The guard for the event-kind table: one run through the binary publishes every kind in
// lib/events/kinds.ts, as seen by an observe hook on "*". A kind nothing publishes fails here.

import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EVENT_KIND_NAMES } from "../../lib/events/kinds.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, scriptAwaits, writeConfig } from "./support.ts";

test("a run publishes every declared event kind, and an observe hook on * sees each", async () => {
  const sb = sandbox();
  // one file per event, renamed to .json once complete: observers run concurrently, so appends to one file could interleave
  const seen = join(sb.dir, "events");
  mkdirSync(seen);
  writeConfig(sb, ".mcpx.json", {
    mcpServers: { fake: fakeServer({ FAKE_MCP_LIST_CHANGED: "1" }), crashy: fakeServer({ FAKE_MCP_CRASH_ON: "slow" }) },
    hooks: [
      { name: "see-all", on: "*", phase: "observe", run: ["sh", "-c", 't=$(mktemp "$0/event.XXXXXX"); cat > "$t"; mv "$t" "$t.json"', seen] },
      // a failing hook publishes hook.failed; failure open, so the call goes on
      { name: "broken-guard", on: "call", phase: "before", when: { tool: "json_text" }, run: ["sh", "-c", "exit 1"] },
    ],
  });
  const script = [
    'await fake.echo({ message: "hi" })', // server.started, call.finished
    "await fake.touch_tools()", // tools.changed
    "await fake.json_text()", // hook.failed
    "await crashy.slow({ ms: 1 }).catch(() => {})", // server.stopped (the server exits)
    // the list_changed notification and the crash reach mcpx on their own schedule: the run ends only
    // once the observer has written both events (the rest are published in order around the run)
    'const { readdirSync, readFileSync } = await import("node:fs")',
    `const kindsSeen = () => readdirSync(${JSON.stringify(seen)}).filter((f) => ` +
      `f.endsWith(".json")).map((f) => JSON.parse(readFileSync(${JSON.stringify(seen)} + "/" + f, "utf8")).event.kind)`,
    scriptAwaits('["tools.changed", "server.stopped"].every((k) => kindsSeen().includes(k))', "tools.changed and server.stopped observed"),
  ].join("; ");
  const r = await mcpx(sb, ["exec", script]); // script.started, script.finished
  expectExit(r, 0);
  const files = readdirSync(seen).filter((f) => f.endsWith(".json"));
  expect(files.length).toBeGreaterThan(0);
  const kinds = new Set(files.map((f) => (JSON.parse(readFileSync(join(seen, f), "utf8")) as { event: { kind: string } }).event.kind));
  expect(EVENT_KIND_NAMES.filter((k) => !kinds.has(k))).toEqual([]);
});
