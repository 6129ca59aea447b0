// Each server is spoken to in its own protocol era: a server built on the SDK v2 that refuses the 2025
// `initialize` handshake (fixtures/servers/modern-server.ts) is reached over 2026-07-28 beside a 2025
// server, by `call`, `ls`, `types` and a script; the verdict is remembered per server entry in the
// state directory, and an entry may pin its era with `protocolVersion`.

import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, fakeServer, ROOT, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const MODERN_SERVER = join(ROOT, "fixtures/servers/modern-server.ts");
const KILL_AFTER_MS = 60_000;

function modernServer(extra: Record<string, unknown> = {}, record?: string) {
  return { command: BUN, args: [MODERN_SERVER], ...(record ? { env: { MODERN_MCP_RECORD: record } } : {}), ...extra };
}

/** the era verdicts mcpx remembered in the sandbox's state directory, by server name */
function verdicts(stateHome: string): Record<string, string> {
  const dir = join(stateHome, "mcpx", "protocol-eras");
  if (!existsSync(dir)) return {};
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir)) {
    const v = JSON.parse(readFileSync(join(dir, f), "utf8")) as { server: string; era: string };
    out[v.server] = v.era;
  }
  return out;
}

test("a 2026-07-28 server that refuses initialize is called, listed and typed beside a 2025 server", async () => {
  const sb = sandbox();
  const record = join(sb.dir, "modern.jsonl");
  writeConfig(sb, ".mcpx.json", { mcpServers: { modern: modernServer({}, record), fake: fakeServer() } });

  const call = await mcpx(sb, ["call", "modern.echo", JSON.stringify({ text: "hello" })], { killAfterMs: KILL_AFTER_MS });
  expectExit(call, 0);
  expect(call.stdout.trim()).toBe("hello");
  expect(readFileSync(record, "utf8")).toContain('"era":"modern"');

  const ls = await mcpx(sb, ["ls", "--json"], { killAfterMs: KILL_AFTER_MS });
  expectExit(ls, 0);
  const rows = JSON.parse(ls.stdout) as Array<{ server: string; count: number }>;
  expect(rows.find((r) => r.server === "modern")?.count).toBe(3);
  expect(rows.find((r) => r.server === "fake")?.count).toBeGreaterThan(0);

  const types = await mcpx(sb, ["types", "modern.add"], { killAfterMs: KILL_AFTER_MS });
  expectExit(types, 0);
  expect(types.stdout).toContain("sum");

  const script = 'emit({ sum: await modern.add({ a: 2, b: 3 }), echoed: await fake.echo({ message: "beside" }) })';
  const run = await mcpx(sb, ["exec", "--json", script], { killAfterMs: KILL_AFTER_MS });
  expectExit(run, 0);
  expect((JSON.parse(run.stdout) as { emits: unknown[] }).emits[0]).toEqual({ sum: { sum: 5 }, echoed: "beside" });

  expect(verdicts(join(sb.home, ".local/state"))).toEqual({ modern: "modern", fake: "legacy" });
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
}, 120_000);

test("an entry pinned to 2025-11-25 is spoken to with initialize alone, and its verdict is not probed", async () => {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", { mcpServers: { modern: modernServer({ protocolVersion: "2025-11-25" }), fake: fakeServer() } });
  const r = await mcpx(sb, ["call", "modern.echo", JSON.stringify({ text: "x" })], { killAfterMs: KILL_AFTER_MS });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("Unsupported protocol version");
  expect(verdicts(join(sb.home, ".local/state"))).toEqual({});
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
}, 120_000);

test("an entry pinned to 2026-07-28 is spoken to in that era, and a pin on a 2025 server says it was not offered", async () => {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", {
    mcpServers: { modern: modernServer({ protocolVersion: "2026-07-28" }), fake: { ...fakeServer(), protocolVersion: "2026-07-28" } },
  });
  const ok = await mcpx(sb, ["call", "modern.echo", JSON.stringify({ text: "pinned" })], { killAfterMs: KILL_AFTER_MS });
  expectExit(ok, 0);
  expect(ok.stdout.trim()).toBe("pinned");
  const refused = await mcpx(sb, ["call", "fake.echo", JSON.stringify({ message: "x" })], { killAfterMs: KILL_AFTER_MS });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("2026-07-28");
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
}, 120_000);

test("a protocolVersion that is not one mcpx speaks is refused, naming the accepted values", async () => {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", { mcpServers: { modern: modernServer({ protocolVersion: "2027-01-01" }) } });
  const r = await mcpx(sb, ["call", "modern.echo", JSON.stringify({ text: "x" })], { killAfterMs: KILL_AFTER_MS });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("protocolVersion");
  expect(r.stderr).toContain('"2025-11-25"');
  expect(r.stderr).toContain('"2026-07-28"');
});
