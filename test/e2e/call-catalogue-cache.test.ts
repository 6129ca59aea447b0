// `mcpx call` with the catalogue cache standing in for tools/list (lib/exec/cached-call.ts): the answers
// are those of the live list whatever the cache says. Each test has its own sandbox, so the cache
// directory holds the one catalogue of its one server, which the test rewrites to make it stale.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { fakeServer, sandbox, type Sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

interface CachedTool {
  name: string;
  inputSchema?: unknown;
}

const sandboxes: Sandbox[] = [];

/** a sandbox whose one server has been called once, so its catalogue is in the cache */
async function warmed(hooks?: unknown[]): Promise<{ sb: Sandbox; record: string }> {
  const sb = sandbox();
  sandboxes.push(sb);
  const record = join(sb.dir, "calls.jsonl");
  writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) }, ...(hooks ? { hooks } : {}) });
  expectExit(await mcpx(sb, ["call", "fake.echo", '{"message":"warm"}']), 0);
  return { sb, record };
}

function catalogueFile(sb: Sandbox): string {
  const dir = join(sb.home, ".cache/mcpx/catalog");
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  return join(dir, files[0]!);
}

/** rewrites the cached catalogue as if the server had listed something else when it was written */
function staleCache(sb: Sandbox, change: (tools: CachedTool[]) => CachedTool[]): void {
  const file = catalogueFile(sb);
  writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(file, "utf8")) as CachedTool[])));
}

const cachedNames = (sb: Sandbox) => (JSON.parse(readFileSync(catalogueFile(sb), "utf8")) as CachedTool[]).map((t) => t.name);
const echoAs = (name: string) => (tools: CachedTool[]) => [...tools, { ...tools.find((t) => t.name === "echo")!, name }];

describe.concurrent("mcpx call from the catalogue cache", () => {
  test("an identifier still reaches the tool the server lists under another name (get_sum → get-sum)", async () => {
    const { sb, record } = await warmed();
    const r = await mcpx(sb, ["call", "fake.get_sum", '{"values":[1,2,3]}']);
    expectExit(r, 0);
    expect(r.stdout).toBe("6\n");
    expect(recordedCalls(record, "get-sum")).toHaveLength(1);
  });

  test("a tool gone from the server since the cache was written is the unknown-tool error with its did-you-mean, and the cache is listed anew", async () => {
    const { sb, record } = await warmed();
    staleCache(sb, echoAs("echoo"));
    const r = await mcpx(sb, ["call", "fake.echoo", '{"message":"x"}']);
    expectExit(r, 1);
    expect(r.stderr).toContain('unknown tool "echoo" on server "fake" (did you mean echo?)');
    expect(cachedNames(sb)).not.toContain("echoo");
    // the cache was believed (the server was asked, and refused), unlike with a hook in force below
    expect(recordedCalls(record, "echoo")).toHaveLength(1);
  });

  test("an input schema changed since the cache was written: arguments the live one refuses are exit 2 in its words", async () => {
    const { sb, record } = await warmed();
    staleCache(sb, (tools) => tools.map((t) => (t.name === "echo" ? { ...t, inputSchema: { type: "object" } } : t)));
    const r = await mcpx(sb, ["call", "fake.echo", '{"message":5}']);
    expectExit(r, 2);
    expect(r.stderr).toContain('argument "message" must be string');
    // the stale schema let the call go out; the live one judged it
    expect(recordedCalls(record, "echo").filter((c) => (c.args as { message?: unknown }).message === 5)).toHaveLength(1);
  });

  test("arguments the cached schema refuses are checked against the live list: the server never sees them", async () => {
    const { sb, record } = await warmed();
    const r = await mcpx(sb, ["call", "fake.add", '{"a":1,"b":"2"}']);
    expectExit(r, 2);
    expect(r.stderr).toContain('argument "b" must be number');
    expect(recordedCalls(record, "add")).toEqual([]);
  });

  test("with a hook in force the cache is not used: the live list decides, and the server never sees a call to a tool it does not list", async () => {
    // a hook that matches no call: it is in force, so annotations (and with them the list) must be live
    const { sb, record } = await warmed([{ on: "call", phase: "before", when: { tool: "no_such_tool" }, run: ["true"] }]);
    staleCache(sb, echoAs("echoo"));
    const r = await mcpx(sb, ["call", "fake.echoo", '{"message":"x"}']);
    expectExit(r, 1);
    expect(r.stderr).toContain('unknown tool "echoo" on server "fake" (did you mean echo?)');
    expect(recordedCalls(record, "echoo")).toEqual([]);
  });
});

test("no server process started by this file's calls is left behind", async () => {
  for (const sb of sandboxes) expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
