// Each server is spoken to in its own protocol era: a server built on the SDK v2 that refuses the 2025
// `initialize` handshake (fixtures/servers/modern-server.ts) is reached over 2026-07-28 beside a 2025
// server, by `call`, `ls`, `types` and a script; the verdict is remembered per server entry in the
// state directory, and an entry may pin its era with `protocolVersion`.

import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, fakeServer, ROOT, sandbox } from "./harness.ts";
import { expectExit, httpFixture, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

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
  expect(rows.find((r) => r.server === "modern")?.count).toBe(5);
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

test("a 2026-07-28 server's logs reach stderr and the run's log frames, at the level each request asks in its envelope", async () => {
  const sb = sandbox();
  const record = join(sb.dir, "modern.jsonl");
  writeConfig(sb, ".mcpx.json", { mcpServers: { modern: modernServer({}, record) } });
  const info = await mcpx(sb, ["call", "modern.log", JSON.stringify({ text: "hello" }), "--logging-level", "info"], { killAfterMs: KILL_AFTER_MS });
  expectExit(info, 0);
  expect(info.stderr).toContain("modern: modern: hello");
  // the server filtered it: the envelope asked for info
  expect(info.stderr).not.toContain("debug: hello");
  const frames = await mcpx(sb, ["exec", "--output", "stream", "--logging-level", "debug", 'await modern.log({ text: "framed" })'], {
    killAfterMs: KILL_AFTER_MS,
  });
  expectExit(frames, 0);
  const logs = frames.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; message?: string; server?: string })
    .filter((f) => f.type === "log");
  expect(logs.map((f) => [f.server, f.message])).toEqual([
    ["modern", "framed"],
    ["modern", "debug: framed"],
  ]);
  const levels = readFileSync(record, "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { logLevel?: string }).logLevel);
  expect(levels).toEqual(["info", "debug"]);
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
}, 120_000);

test("over Streamable HTTP the era is probed too: a 2026-only server and a 2025 one are both called, and each verdict is remembered", async () => {
  const sb = sandbox();
  const modern = await httpFixture(MODERN_SERVER, { ...process.env, MODERN_MCP_HTTP_PORT: "0" });
  const legacy = await httpFixture(join(ROOT, "fixtures/servers/fake-server.ts"), { ...process.env, FAKE_MCP_HTTP_PORT: "0" });
  try {
    writeConfig(sb, ".mcpx.json", { mcpServers: { modern: { url: modern.url }, web: { url: legacy.url } } });
    for (let round = 0; round < 2; round++) {
      // the second round starts from the remembered verdicts
      const r = await mcpx(sb, ["exec", "--json", 'emit({ sum: await modern.add({ a: 2, b: 3 }), echoed: await web.echo({ message: "old" }) })'], {
        killAfterMs: KILL_AFTER_MS,
      });
      expectExit(r, 0);
      expect((JSON.parse(r.stdout) as { emits: unknown[] }).emits[0]).toEqual({ sum: { sum: 5 }, echoed: "old" });
      expect(verdicts(join(sb.home, ".local/state"))).toEqual({ modern: "modern", web: "legacy" });
    }
  } finally {
    await modern.stop();
    await legacy.stop();
  }
}, 120_000);

test("a 2026-07-28 server that asks for a form nobody here can fill is declined, and the call is retried with its requestState on a new id", async () => {
  const sb = sandbox();
  const modern = await httpFixture(MODERN_SERVER, { ...process.env, MODERN_MCP_HTTP_PORT: "0" });
  try {
    writeConfig(sb, ".mcpx.json", { mcpServers: { modern: { url: modern.url } } });
    const r = await mcpx(sb, ["call", "modern.ask_anyway"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const m = /^decline \(requestState: opaque-state, id (\S+) after (\S+)\)\n$/.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(m![1]).not.toBe(m![2]);
    expect(r.stderr).toContain("asked for input (elicitation) and was declined");
  } finally {
    await modern.stop();
  }
}, 120_000);

test("over HTTP a 2026-07-28 tool's x-mcp-header arguments are sent as Mcp-Param headers, and a tool declaring one wrongly is left out", async () => {
  const sb = sandbox();
  const modern = await httpFixture(MODERN_SERVER, { ...process.env, MODERN_MCP_HTTP_PORT: "0" });
  try {
    writeConfig(sb, ".mcpx.json", { mcpServers: { modern: { url: modern.url } } });
    const ls = await mcpx(sb, ["ls", "modern", "--json"], { killAfterMs: KILL_AFTER_MS });
    expectExit(ls, 0);
    const names = (JSON.parse(ls.stdout) as Array<{ tools: Array<{ name: string }> }>)[0]!.tools.map((t) => t.name);
    expect(names).toContain("where");
    expect(names).toContain("echo");
    expect(names).not.toContain("bad_header");
    expect(ls.stderr).toContain("excluding tool 'bad_header'");
    // a new process, which knows the tool from the tool-list cache and has listed nothing itself
    const call = await mcpx(sb, ["call", "modern.where", "region=eu-west"], { killAfterMs: KILL_AFTER_MS });
    expectExit(call, 0);
    expect(call.stdout).toBe("Mcp-Param-Region: eu-west\n");
  } finally {
    await modern.stop();
  }
}, 120_000);

test("a 2026-07-28 server's progress becomes progress frames, and a run's timeout cancels its call upstream", async () => {
  const sb = sandbox();
  const record = join(sb.dir, "modern.jsonl");
  writeConfig(sb, ".mcpx.json", { mcpServers: { modern: modernServer({}, record) } });
  const done = await mcpx(sb, ["exec", "--output", "stream", "await modern.wait({ ms: 1 })"], { killAfterMs: KILL_AFTER_MS });
  expectExit(done, 0);
  const progress = done.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((f) => f.type === "progress");
  expect(progress).toEqual([expect.objectContaining({ type: "progress", server: "modern", tool: "wait", progress: 1, total: 2, message: "halfway" })]);

  const timedOut = await mcpx(sb, ["exec", "--timeout", "3s", "await modern.wait({ ms: 600000 })"], { killAfterMs: KILL_AFTER_MS });
  expectExit(timedOut, 124);
  const cancelled = () =>
    readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .some((l) => l.includes('"event":"cancelled"'));
  for (let waited = 0; !cancelled() && waited < 20_000; waited += 20) await Bun.sleep(20);
  expect(cancelled()).toBe(true);
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
}, 120_000);
