// `mcpx call` starting its server before it reads config, from the note the last such call left
// (lib/mcp/early-server.ts, decision 0013): taken only when the call's own start is exactly the one
// noted, useless once a config file it was resolved from changes or appears, ended when unused, and
// never noted for a call with a hook in force. The stages come from MCPX_TRACE, which every call here
// sets (the environment is part of a note's key).

import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, sandbox, type Sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const TRACE = { env: { MCPX_TRACE: "1" } };
const sandboxes: Sandbox[] = [];

/** a sandbox with one server `fake`, whose starts are recorded */
function withServer(config: Record<string, unknown> = {}): { sb: Sandbox; record: string } {
  const sb = sandbox();
  sandboxes.push(sb);
  const record = join(sb.dir, "calls.jsonl");
  writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) }, ...config });
  return { sb, record };
}

async function call(sb: Sandbox, message: string, extra: string[] = []) {
  const r = await mcpx(sb, ["call", "fake.echo", JSON.stringify({ message }), ...extra], TRACE);
  expectExit(r, 0);
  expect(r.stdout).toBe(`${message}\n`);
  return r;
}

/** how many times a server wrote its start to this record file */
function starts(record: string): number {
  if (!existsSync(record)) return 0;
  return readFileSync(record, "utf8")
    .split("\n")
    .filter((l) => l.includes('"event":"start"')).length;
}

function noteFiles(sb: Sandbox): string[] {
  const dir = join(sb.home, ".local/state/mcpx/early");
  return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
}

describe.concurrent("a one-shot call starts its server before reading config", () => {
  test("the second call starts the noted server early and uses it: one server per call", async () => {
    const { sb, record } = withServer();
    const first = await call(sb, "one");
    expect(first.stderr).not.toContain("server spawned early");
    expect(noteFiles(sb)).toHaveLength(1);
    const second = await call(sb, "two");
    expect(second.stderr).toContain("server spawned early");
    expect(second.stderr).toContain("early server taken");
    expect(starts(record)).toBe(2);
  });

  test("a note is written 0600 in the state directory, and holds no variable of mcpx's own environment", async () => {
    const { sb } = withServer();
    await mcpx(sb, ["call", "fake.echo", '{"message":"x"}'], { env: { MCPX_TRACE: "1", SOME_SECRET: "hunter2" } });
    const [note] = noteFiles(sb);
    expect(note).toBeDefined();
    expect(Bun.file(note!).size).toBeGreaterThan(0);
    const { statSync } = await import("node:fs");
    expect(statSync(note!).mode & 0o777).toBe(0o600);
    expect(readFileSync(note!, "utf8")).not.toContain("hunter2");
  });

  test("a changed config file makes the note useless: the call starts the server its config now says", async () => {
    const { sb, record } = withServer();
    await call(sb, "one");
    const moved = join(sb.dir, "moved.jsonl");
    writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: moved }) } });
    const r = await call(sb, "two");
    expect(r.stderr).not.toContain("server spawned early");
    expect(starts(record)).toBe(1);
    expect(starts(moved)).toBe(1);
  });

  test("a config file that appears where none was is seen: a nearer project file wins, and no early start", async () => {
    const { sb, record } = withServer();
    const nearer = join(sb.dir, "sub");
    const moved = join(sb.dir, "nearer.jsonl");
    writeConfig(sb, "sub/.mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: moved }) } });
    // a first call from sub/ writes its note; then a file appears where that call found none
    const r1 = await mcpx(sb, ["call", "fake.echo", '{"message":"a"}'], { ...TRACE, cwd: nearer });
    expectExit(r1, 0);
    writeConfig(sb, "sub/.mcpx/config.json", { logging: { level: "warn" } });
    const r2 = await mcpx(sb, ["call", "fake.echo", '{"message":"b"}'], { ...TRACE, cwd: nearer });
    expectExit(r2, 0);
    expect(r2.stdout).toBe("b\n");
    expect(r2.stderr).not.toContain("server spawned early");
    expect(starts(moved)).toBe(2);
    expect(starts(record)).toBe(0);
  });

  test("a guess that does not fit the call's own start is ended unused, and the call starts its own", async () => {
    const { sb, record } = withServer();
    await call(sb, "one");
    // the note now names another start: the same server with another record file
    const [file] = noteFiles(sb);
    const note = JSON.parse(readFileSync(file!, "utf8")) as { env: Record<string, string> };
    const guessed = join(sb.dir, "guessed.jsonl");
    note.env = { FAKE_MCP_RECORD: guessed };
    writeFileSync(file!, JSON.stringify(note));
    const r = await call(sb, "two");
    expect(r.stderr).toContain("server spawned early");
    expect(r.stderr).not.toContain("early server taken");
    expect(starts(record)).toBe(2);
    expect(await leftoverProcesses(guessed)).toEqual([]);
  });

  test("an early server is ended when the call fails before it starts any", async () => {
    const { sb, record } = withServer();
    await call(sb, "one");
    const r = await mcpx(sb, ["call", "fake.echo", "{not json"], TRACE);
    expectExit(r, 2);
    expect(r.stderr).toContain("server spawned early");
    expect(await leftoverProcesses(record)).toEqual([]);
  });

  test("no note for a call with a hook in force, and none is read for a call with other flags", async () => {
    const hooked = withServer({ hooks: [{ on: "call", phase: "before", run: ["true"] }] });
    await call(hooked.sb, "one");
    expect(noteFiles(hooked.sb)).toEqual([]);
    const { sb } = withServer();
    await call(sb, "one");
    const r = await call(sb, "two", ["--logging-level", "warn"]);
    expect(r.stderr).not.toContain("server spawned early");
  });
});

/** the pids a record file's servers wrote at their start */
function startedPids(record: string): number[] {
  return readFileSync(record, "utf8")
    .split("\n")
    .filter((l) => l.includes('"event":"start"'))
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
}

test("every server a call started, taken or not, is reaped before mcpx exits: not even a zombie is left to init", async () => {
  const { sb, record } = withServer();
  await call(sb, "one");
  await call(sb, "two");
  expectExit(await mcpx(sb, ["call", "fake.echo", "{not json"], TRACE), 2);
  const pids = startedPids(record);
  expect(pids.length).toBeGreaterThanOrEqual(2);
  // a zombie still has its /proc entry; an init that reaps late (a container's) would keep it
  expect(pids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
});

test("no server process started by this file's runs is left behind", async () => {
  for (const sb of sandboxes) expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
