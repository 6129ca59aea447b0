// A script's calls after its first find their tool without asking the pool again (Pool.listedTools,
// knownTool): each name still reaches the tool it resolved to, an alias included, and a name the server
// does not have is still refused with the live list's answer, however many calls came before.

import { expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

test("calls alternating between tools, by name and by alias, each reach their own tool (get_sum is get-sum)", async () => {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
  const script = [
    "const got = []",
    'for (let i = 0; i < 3; i++) got.push(await fake.echo({ message: "m" + i }), await fake.get_sum({ values: [i, 1] }), await fake.json_text())',
    'const missing = await fake.nope().then(() => "called", (e) => e.message)',
    "emit({ got, missing })",
  ].join("; ");
  const r = await mcpx(sb, ["exec", "--json", script]);
  expectExit(r, 0);
  const env = JSON.parse(r.stdout) as { emits: Array<{ got: unknown[]; missing: string }>; calls: Array<{ tool: string; ok: boolean }> };
  const json = { ok: true, items: [1, 2, 3] };
  expect(env.emits[0]!.got).toEqual(["m0", 1, json, "m1", 2, json, "m2", 3, json]);
  expect(env.emits[0]!.missing).toContain("nope");
  expect(env.calls.map((c) => c.tool)).toEqual([...Array.from({ length: 3 }, () => ["echo", "get-sum", "json_text"]).flat(), "nope"]);
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
