// The fake MCP server (fixtures/servers/fake-server.ts) and the npm server-everything behave the way
// the rest of the suite assumes. If a test here goes red, fix the fixture before reading any other
// failure: every e2e test stands on these.
//
// server-everything 2026.8.31 (node_modules/.bin/mcp-server-everything, stdio, serverInfo.name
// "mcp-servers/everything"), tools listed for a client that declares no capabilities, in its order:
//   echo                     {message: string}                  → text "Echo: <message>"
//   get-annotated-message    {messageType: "error"|"success"|"debug", includeImage?: boolean}
//   get-env                  {}
//   get-resource-links       {count?: number (1-10, default 3)}
//   get-resource-reference   {resourceType?: "Text"|"Blob", resourceId?: number}
//   get-structured-content   {location: "New York"|"Chicago"|"Los Angeles"}  (has an outputSchema)
//   get-sum                  {a: number, b: number}             → text "The sum of <a> and <b> is <a+b>."
//   get-tiny-image           {}
//   gzip-file-as-resource    {name?: string, data?: string (uri), outputType?: "resourceLink"|"resource"}
//   toggle-simulated-logging {}
//   toggle-subscriber-updates {}
//   trigger-long-running-operation {duration?: number (s, default 10), steps?: number (default 5)}
//   simulate-research-query  {topic: string, ambiguous?: boolean}
// It has no `add` tool, and its `get-sum` takes {a, b} — unlike the fake's `get-sum` {values: number[]}.
// A client that declares roots/sampling/elicitation also gets get-roots-list, trigger-sampling-request,
// trigger-elicitation-request, trigger-url-elicitation and the *-async variants.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { payload, sha256 } from "../../fixtures/servers/payload.ts";
import { readRecord, recordedCalls, recordedStarts } from "../../fixtures/servers/record.ts";

const ROOT = resolve(import.meta.dir, "../..");
const FAKE = join(ROOT, "fixtures/servers/fake-server.ts");
const EVERYTHING = join(ROOT, "node_modules/.bin/mcp-server-everything");
const BUN = process.execPath;

const HOOK_TOOLS = ["_PreToolUse", "_secret"];
const FAKE_TOOLS = [
  "echo",
  "add",
  "json_text",
  "fail",
  "rpc_error",
  "get-sum",
  "optional_args",
  "nested",
  "delete_item",
  "slow",
  "env",
  "bytes",
  "sha256",
  ...HOOK_TOOLS,
];
const EVERYTHING_TOOLS = [
  "echo",
  "get-annotated-message",
  "get-env",
  "get-resource-links",
  "get-resource-reference",
  "get-structured-content",
  "get-sum",
  "get-tiny-image",
  "gzip-file-as-resource",
  "toggle-simulated-logging",
  "toggle-subscriber-updates",
  "trigger-long-running-operation",
  "simulate-research-query",
];

// What every test leaves behind; afterEach ends it all and then proves each pid is gone.
const clients: Client[] = [];
const procs: Bun.Subprocess[] = [];
const pids: number[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  for (const p of procs.splice(0)) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await p.exited;
  }
  for (const pid of pids.splice(0)) expect(alive(pid)).toBe(false);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tempFile(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpx-fixture-"));
  dirs.push(dir);
  return join(dir, name);
}

/** The test's environment without FAKE_MCP_* knobs that could leak in from the shell. */
function baseEnv(knobs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("FAKE_MCP_")) env[k] = v;
  return { ...env, ...knobs };
}

/** Starts a server over stdio with the SDK client; stderr is captured rather than inherited. */
async function stdio(knobs: Record<string, string> = {}, command = BUN, args = [FAKE]) {
  const transport = new StdioClientTransport({ command, args, env: baseEnv(knobs), stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "fixture-test", version: "0.0.0" });
  clients.push(client);
  await client.connect(transport);
  const pid = transport.pid!;
  pids.push(pid);
  return { client, transport, pid, stderr: () => stderr };
}

/** Starts the fake with Bun.spawn, for tests that need its exit code or raw stdio. */
function spawnFake(knobs: Record<string, string>) {
  const proc = Bun.spawn([BUN, FAKE], { env: baseEnv(knobs), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  pids.push(proc.pid);
  return proc;
}

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

const INIT = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];
const rawLines = (msgs: object[]) => msgs.map((m) => JSON.stringify(m) + "\n").join("");

describe("fake server over stdio", () => {
  test("it lists every tool, hook tools included, under the configured name", async () => {
    const { client } = await stdio({ FAKE_MCP_NAME: "alpha" });
    expect(client.getServerVersion()?.name).toBe("alpha");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(FAKE_TOOLS);
    expect(tools.find((t) => t.name === "delete_item")?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === "add")?.outputSchema?.properties).toHaveProperty("sum");
    const nested = tools.find((t) => t.name === "nested")!.inputSchema.properties as Record<string, any>;
    expect(nested.mode.enum).toEqual(["fast", "slow"]);
    expect(nested.target.anyOf).toHaveLength(2);
    expect(nested.items.items.type).toBe("object");
    expect(tools.find((t) => t.name === "optional_args")?.inputSchema.required ?? []).toEqual([]);
  });

  test("the server name defaults to fake", async () => {
    const { client } = await stdio();
    expect(client.getServerVersion()?.name).toBe("fake");
  });

  test("each tool answers as documented", async () => {
    const { client } = await stdio({ FAKE_MCP_HOOK_TEXT: "object!", FAKE_MCP_TEST_MARK: "x" });
    const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });

    expect(textOf(await call("echo", { message: "hi" }))).toBe("hi");
    const add = (await call("add", { a: 2, b: 3 })) as CallToolResult;
    expect(add.structuredContent).toEqual({ sum: 5 });
    expect(JSON.parse(textOf(add))).toEqual({ sum: 5 });
    expect(JSON.parse(textOf(await call("json_text")))).toEqual({ ok: true, items: [1, 2, 3] });
    const fail = (await call("fail", { message: "boom" })) as CallToolResult;
    expect(fail.isError).toBe(true);
    expect(textOf(fail)).toBe("boom");
    expect(textOf(await call("fail"))).toBe("failed");
    expect(textOf(await call("get-sum", { values: [1, 2, 3] }))).toBe("6");
    expect(textOf(await call("optional_args"))).toBe("hello");
    expect(textOf(await call("optional_args", { greeting: "hey" }))).toBe("hey");
    const nestedArgs = { mode: "fast", target: { id: 7 }, items: [{ name: "a", count: 1 }, { name: "b" }] };
    expect(JSON.parse(textOf(await call("nested", nestedArgs)))).toEqual(nestedArgs);
    expect(textOf(await call("delete_item", { id: "42" }))).toBe("deleted 42");
    expect(textOf(await call("slow", { ms: 20 }))).toBe("done");
    // A server started with an explicit env sees exactly that env; an unset name answers "".
    expect(textOf(await call("env", { name: "FAKE_MCP_TEST_MARK" }))).toBe("x");
    expect(textOf(await call("env", { name: "FAKE_MCP_SURELY_UNSET" }))).toBe("");
    // the payload tools: deterministic text of the asked size, and what the server received
    const bytes = textOf(await call("bytes", { size: 1000, seed: 7 }));
    expect(bytes).toBe(payload(1000, 7));
    expect(bytes).not.toBe(payload(1000, 8));
    expect(textOf(await call("sha256", { data: bytes }))).toBe(`1000 ${sha256(bytes)}`);
    expect(textOf(await call("_PreToolUse", { tool: "echo" }))).toBe("object!");
    expect(textOf(await call("_secret"))).toBe("secret");
  });

  test("schema validation errors come back as isError results", async () => {
    const { client } = await stdio();
    const bad = (await client.callTool({ name: "nested", arguments: { mode: "medium", target: 1, items: [] } })) as CallToolResult;
    expect(bad.isError).toBe(true);
  });

  test("_PreToolUse answers empty text by default: no objection", async () => {
    const { client } = await stdio();
    expect(textOf(await client.callTool({ name: "_PreToolUse", arguments: {} }))).toBe("");
  });

  test("the record file gets a start line and one line per call, even for unknown tools", async () => {
    const file = tempFile("record.jsonl");
    const { client, pid } = await stdio({ FAKE_MCP_RECORD: file });
    await client.callTool({ name: "echo", arguments: { message: "one" } });
    await client.callTool({ name: "_secret", arguments: {} });
    await client.callTool({ name: "no_such_tool", arguments: { x: 1 } }).catch(() => {});
    expect(readRecord(file)).toEqual([
      { event: "start", pid },
      { tool: "echo", args: { message: "one" }, pid },
      { tool: "_secret", args: {}, pid },
      { tool: "no_such_tool", args: { x: 1 }, pid },
    ]);
    expect(recordedCalls(file, "echo")).toHaveLength(1);
    expect(recordedStarts(file)).toHaveLength(1);
  });

  test("a record file that was never written reads as empty", () => {
    expect(readRecord(tempFile("never.jsonl"))).toEqual([]);
  });

  test("FAKE_MCP_STDERR goes to the server's stderr, not its stdout", async () => {
    const { client, stderr } = await stdio({ FAKE_MCP_STDERR: "fake says hello on stderr" });
    await client.listTools(); // stdout carried only protocol, or this would have failed to parse
    expect(stderr()).toContain("fake says hello on stderr");
  });

  // A delay is shown as an answer that does not come within a call timeout far below it, never by
  // timing an answer: 60 s against 300 ms holds on any machine, loaded or not.
  test("FAKE_MCP_TOOL_DELAY delays ordinary tools and not hook tools", async () => {
    const { client } = await stdio({ FAKE_MCP_TOOL_DELAY: "60000" });
    await expect(client.callTool({ name: "echo", arguments: { message: "m" } }, undefined, { timeout: 300 })).rejects.toThrow(/timed out/i);
    expect(textOf(await client.callTool({ name: "_PreToolUse", arguments: {} }))).toBe("");
  });

  test("FAKE_MCP_HOOK_DELAY delays hook tools and not ordinary tools", async () => {
    const { client } = await stdio({ FAKE_MCP_HOOK_DELAY: "60000", FAKE_MCP_HOOK_TEXT: "hook says" });
    await expect(client.callTool({ name: "_PreToolUse", arguments: {} }, undefined, { timeout: 300 })).rejects.toThrow(/timed out/i);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "m" } }))).toBe("m");
  });

  test("FAKE_MCP_HANG_TOOL never answers while other tools still do", async () => {
    const file = tempFile("record.jsonl");
    const { client } = await stdio({ FAKE_MCP_HANG_TOOL: "echo", FAKE_MCP_RECORD: file });
    const hung = client.callTool({ name: "echo", arguments: { message: "x" } }, undefined, { timeout: 300 });
    await expect(hung).rejects.toThrow(/timed out/i);
    expect(textOf(await client.callTool({ name: "get-sum", arguments: { values: [1] } }))).toBe("1");
    expect(recordedCalls(file, "echo")).toHaveLength(1); // it reached the server and was swallowed
  });

  test("FAKE_MCP_EXTRA_TOOLS adds extra_0 … extra_n-1", async () => {
    const { client } = await stdio({ FAKE_MCP_EXTRA_TOOLS: "50" });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(FAKE_TOOLS.length + 50);
    expect(names.at(-1)).toBe("extra_49");
    expect(textOf(await client.callTool({ name: "extra_7", arguments: {} }))).toBe("extra_7");
  });

  test("FAKE_MCP_CRASH_ON exits 1 after recording the call, and a new start gets a new pid", async () => {
    const file = tempFile("record.jsonl");
    const proc = spawnFake({ FAKE_MCP_CRASH_ON: "add", FAKE_MCP_RECORD: file });
    proc.stdin.write(rawLines([...INIT, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } }]));
    proc.stdin.flush();
    expect(await proc.exited).toBe(1);
    expect(readRecord(file)).toEqual([
      { event: "start", pid: proc.pid },
      { tool: "add", args: { a: 1, b: 2 }, pid: proc.pid },
    ]);

    // Through the SDK client the crash is a failed call, and a reconnect starts a second process.
    const first = await stdio({ FAKE_MCP_CRASH_ON: "add", FAKE_MCP_RECORD: file });
    await expect(first.client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).rejects.toThrow();
    const second = await stdio({ FAKE_MCP_RECORD: file });
    expect(textOf(await second.client.callTool({ name: "echo", arguments: { message: "back" } }))).toBe("back");
    expect(recordedStarts(file).map((s) => s.pid)).toEqual([proc.pid, first.pid, second.pid]);
  });

  test("the server exits 0 when its stdin closes", async () => {
    const proc = spawnFake({});
    proc.stdin.write(rawLines(INIT));
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  });

  test("a malformed knob is fatal, with a message naming it", async () => {
    const proc = spawnFake({ FAKE_MCP_TOOL_DELAY: "soon" });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("FAKE_MCP_TOOL_DELAY");
  });
});

describe("task server over stdio", () => {
  const TASKS = join(ROOT, "fixtures/servers/task-server.ts");

  test("it lists its tools with the taskSupport its comment documents", async () => {
    const { client } = await stdio({}, BUN, [TASKS]);
    const { tools } = await client.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]))).toEqual({
      research: "required",
      wrong_shape: "required",
      hang: "required",
      big: "required",
      fail: "required",
      ask: "required",
      maybe: "optional",
    });
  });

  test("a task is followed to its result, and the record has every task request, tasks/cancel included", async () => {
    const record = tempFile("tasks.jsonl");
    const { client } = await stdio({ TASK_MCP_RECORD: record }, BUN, [TASKS]);
    await client.listTools();
    const seen: unknown[] = [];
    for await (const m of client.experimental.tasks.callToolStream({ name: "research", arguments: { topic: "t", steps: 1 } })) seen.push(m);
    expect(seen.at(-1)).toMatchObject({
      type: "result",
      result: { content: [{ type: "text", text: "report on t" }], structuredContent: { topic: "t", steps: 1 } },
    });
    const stream = client.experimental.tasks.callToolStream({ name: "hang", arguments: {} });
    const created = (await stream.next()).value as { task: { taskId: string } };
    await client.experimental.tasks.cancelTask(created.task.taskId);
    const lines = readRecord(record) as unknown as Array<{ method?: string; tool?: string; task?: boolean; taskId?: string }>;
    expect(lines.filter((l) => l.method === "tools/call").map((l) => [l.tool, l.task])).toEqual([
      ["research", true],
      ["hang", true],
    ]);
    expect(lines.filter((l) => l.method === "tasks/result")).toHaveLength(1);
    expect(lines.filter((l) => l.method === "tasks/cancel").map((l) => l.taskId)).toEqual([created.task.taskId]);
    await stream.return(undefined);
  });

  test("a malformed knob is fatal, with a message naming it", async () => {
    const proc = Bun.spawn([BUN, TASKS], { env: baseEnv({ TASK_MCP_POLL_MS: "often" }), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    procs.push(proc);
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("TASK_MCP_POLL_MS");
  });
});

describe("fake server over Streamable HTTP", () => {
  /** Spawns the fake in HTTP mode and waits for `listening <port>` on its stderr. */
  async function http(knobs: Record<string, string> = {}) {
    const proc = spawnFake({ FAKE_MCP_HTTP_PORT: "0", ...knobs });
    const reader = proc.stderr.getReader();
    let seen = "";
    let port: number | undefined;
    while (port === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`fake server exited before listening; stderr: ${seen}`);
      seen += new TextDecoder().decode(value);
      const m = /listening (\d+)\n/.exec(seen);
      if (m) port = Number(m[1]);
    }
    void (async () => {
      while (!(await reader.read()).done); // keep draining so the pipe never fills
    })();
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const connect = async () => {
      const client = new Client({ name: "fixture-test", version: "0.0.0" });
      clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    };
    return { proc, port, url, connect, stderr: () => seen };
  }

  test("it prints its port, lists tools and answers calls", async () => {
    const file = tempFile("record.jsonl");
    const { proc, port, connect, stderr } = await http({ FAKE_MCP_NAME: "web", FAKE_MCP_RECORD: file, FAKE_MCP_STDERR: "hi" });
    expect(port).toBeGreaterThan(0);
    expect(stderr()).toContain("hi\n");
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("web");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(FAKE_TOOLS);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "over http" } }))).toBe("over http");
    expect(((await client.callTool({ name: "add", arguments: { a: 4, b: 5 } })) as CallToolResult).structuredContent).toEqual({ sum: 9 });
    // Two clients share one stateless server process: one start line, calls from both recorded.
    const other = await connect();
    await other.callTool({ name: "_secret", arguments: {} });
    expect(readRecord(file)).toEqual([
      { event: "start", pid: proc.pid },
      { tool: "echo", args: { message: "over http" }, pid: proc.pid },
      { tool: "add", args: { a: 4, b: 5 }, pid: proc.pid },
      { tool: "_secret", args: {}, pid: proc.pid },
    ]);
  });

  test("a hanging tool times out over HTTP without blocking other requests", async () => {
    const { connect } = await http({ FAKE_MCP_HANG_TOOL: "slow" });
    const client = await connect();
    await expect(client.callTool({ name: "slow", arguments: { ms: 1 } }, undefined, { timeout: 300 })).rejects.toThrow(/timed out/i);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "still here" } }))).toBe("still here");
  });

  test("crash-on ends the HTTP server with exit 1", async () => {
    const { proc, connect } = await http({ FAKE_MCP_CRASH_ON: "echo" });
    const client = await connect();
    await expect(client.callTool({ name: "echo", arguments: { message: "x" } })).rejects.toThrow();
    expect(await proc.exited).toBe(1);
  });

  test("the HTTP server exits on SIGTERM and when a piped stdin closes", async () => {
    const a = await http();
    a.proc.kill("SIGTERM");
    expect(await a.proc.exited).toBe(0);
    const b = await http();
    b.proc.stdin.end();
    expect(await b.proc.exited).toBe(0);
  });

  test("only /mcp is served and GET gets 405 (stateless: no standalone stream)", async () => {
    const { port, url } = await http();
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await fetch(url)).status).toBe(405);
  });
});

describe("server-everything from npm", () => {
  test("it starts over stdio and lists the tools the comment at the top documents", async () => {
    const { client } = await stdio({}, EVERYTHING, []);
    expect(client.getServerVersion()?.name).toBe("mcp-servers/everything");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(EVERYTHING_TOOLS);
    const echo = tools.find((t) => t.name === "echo")!.inputSchema;
    expect(echo.required).toEqual(["message"]);
    expect(Object.keys(echo.properties ?? {})).toEqual(["message"]);
    const sum = tools.find((t) => t.name === "get-sum")!.inputSchema;
    expect(sum.required).toEqual(["a", "b"]);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).toBe("Echo: hi");
    expect(textOf(await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } }))).toBe("The sum of 2 and 3 is 5.");
  });
});
