// Scripts against real MCP servers: the fake fixture server (fixtures/servers/fake-server.ts, driven
// by FAKE_MCP_* knobs, with a record file that proves what reached it) and
// @modelcontextprotocol/server-everything from npm. Covers the generated client (sanitised names,
// unwrapping, fn.raw, ToolError), hidden `_` hook tools, lazy starts, server stderr, reconnects after
// a crash, and `mcpx call`. server-everything is started twice in this file and nowhere else.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { recordedCalls, recordedCancels, recordedStarts } from "../../fixtures/servers/record.ts";
import { everythingServer, fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, uniqueMarker, writeConfig } from "./support.ts";

const sb = sandbox();
const STDERR_MARKER = uniqueMarker("server-stderr");
const mainRecord = join(sb.dir, "main.jsonl");
writeConfig(sb, ".mcpx.json", {
  mcpServers: {
    fake: fakeServer({ FAKE_MCP_RECORD: mainRecord, FAKE_MCP_STDERR: STDERR_MARKER }),
    everything: everythingServer(),
  },
});

// Configs of their own for the tests that read a record file, so concurrent tests cannot add lines.
const secretRecord = join(sb.dir, "secret.jsonl");
const secretConfig = writeConfig(sb, "secret.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: secretRecord }) } });
const unknownRecord = join(sb.dir, "unknown.jsonl");
const unknownConfig = writeConfig(sb, "unknown.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: unknownRecord }) } });
const lazyRecord = join(sb.dir, "lazy.jsonl");
const lazyConfig = writeConfig(sb, "lazy.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: lazyRecord }) } });
const crashRecord = join(sb.dir, "crash.jsonl");
const crashConfig = writeConfig(sb, "crash.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: crashRecord, FAKE_MCP_CRASH_ON: "slow" }) } });
const rpcRecord = join(sb.dir, "rpc.jsonl");
const rpcConfig = writeConfig(sb, "rpc.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: rpcRecord }) } });
const timeoutRecord = join(sb.dir, "timeout.jsonl");
const timeoutConfig = writeConfig(sb, "timeout.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: timeoutRecord }) } });
const laterTimeoutRecord = join(sb.dir, "later-timeout.jsonl");
const laterTimeoutConfig = writeConfig(sb, "later-timeout.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: laterTimeoutRecord }) } });
const concurrentConfig = writeConfig(sb, "concurrent.json", { mcpServers: { fake: fakeServer() } });
const badJsonRecord = join(sb.dir, "bad-json.jsonl");
const badJsonConfig = writeConfig(sb, "bad-json.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: badJsonRecord }) } });

const HOOK_TOOLS = ["_secret", "_PreToolUse"];
/** the fixture registers 15 tools, two of them lifecycle hooks (`_PreToolUse`, `_secret`) */
const VISIBLE_FAKE_TOOLS = 13;

/** the error a script sees for one call, as JSON on stdout */
const errorOf = (expr: string) =>
  `try { await ${expr}; console.log("no error") } catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })) }`;

describe.concurrent("calling tools from a script", () => {
  test("a script calls tools on the fake server and on server-everything in one run", async () => {
    const r = await mcpx(sb, [
      "exec",
      'console.log(JSON.stringify([await fake.add({ a: 1, b: 2 }), await everything.echo({ message: "hi there" }), await everything.get_sum({ a: 2, b: 3 })]))',
    ]);
    expectExit(r, 0);
    const [sum, echo, total] = JSON.parse(r.stdout) as [unknown, string, string];
    expect(sum).toEqual({ sum: 3 });
    expect(echo).toBe("Echo: hi there");
    expect(String(total)).toContain("5");
  });

  test("results are unwrapped: structuredContent as an object, JSON text parsed, other text as a string", async () => {
    const r = await mcpx(sb, [
      "exec",
      [
        "const add = await fake.add({ a: 4, b: 5 });",
        "const json = await fake.json_text();",
        'const echo = await fake.echo({ message: "plain words" });',
        "console.log(JSON.stringify({ add, json, echo, types: [typeof add, typeof json, typeof echo] }));",
      ].join("\n"),
    ]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ add: { sum: 9 }, json: { ok: true, items: [1, 2, 3] }, echo: "plain words", types: ["object", "object", "string"] });
  });

  test("text is parsed exactly when it is JSON, whatever its first character", async () => {
    const texts = ["x", "42", " \n[1, 2]", "-3", "true", "null", '"quoted"', "nope{", "{bad", "1 2", "tru", "é"];
    const r = await mcpx(sb, [
      "exec",
      `const out = []; for (const m of ${JSON.stringify(texts)}) out.push(await fake.echo({ message: m })); console.log(JSON.stringify(out))`,
    ]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual(["x", 42, [1, 2], -3, true, null, "quoted", "nope{", "{bad", "1 2", "tru", "é"]);
  });

  test("a dashed tool name is callable by its sanitised identifier, and the call keeps the real tool name", async () => {
    const r = await mcpx(sb, ["exec", "--json", "console.log(await fake.get_sum({ values: [1, 2, 3] }))"]);
    const env = JSON.parse(r.stdout);
    expect(env.stdout).toBe("6\n");
    expect(env.calls.map((c: { server: string; tool: string }) => `${c.server}/${c.tool}`)).toEqual(["fake/get-sum"]);
    expect(recordedCalls(mainRecord, "get-sum").some((c) => JSON.stringify(c.args) === '{"values":[1,2,3]}')).toBe(true);
    expectExit(r, 0);
  });

  test("fn.raw(args) returns the raw MCP result", async () => {
    const r = await mcpx(sb, ["exec", 'console.log(JSON.stringify([await fake.add.raw({ a: 1, b: 1 }), await fake.echo.raw({ message: "r" })]))']);
    expectExit(r, 0);
    const [add, echo] = JSON.parse(r.stdout);
    expect(add.structuredContent).toEqual({ sum: 2 });
    expect(add.content).toEqual([{ type: "text", text: '{"sum":2}' }]);
    expect(echo).toEqual({ content: [{ type: "text", text: "r" }] });
  });

  test("an isError result throws a ToolError carrying the server, the tool and the raw result", async () => {
    const r = await mcpx(sb, [
      "exec",
      'try { await fake.fail({ message: "it broke" }) } catch (e) { ' +
        "console.log(JSON.stringify({ name: e.name, isToolError: e instanceof ToolError, server: " +
        "e.server, tool: e.tool, rawIsError: e.raw?.isError, rawText: e.raw?.content?.[0]?.text, message: e.message })) }",
    ]);
    expectExit(r, 0);
    const e = JSON.parse(r.stdout);
    expect(e).toMatchObject({ name: "ToolError", isToolError: true, server: "fake", tool: "fail", rawIsError: true, rawText: "it broke" });
    expect(e.message).toContain("it broke");
  });

  test("an uncaught ToolError exits 1 and names the server and the tool on stderr", async () => {
    const r = await mcpx(sb, ["exec", 'await fake.fail({ message: "unhandled failure" })']);
    expectExit(r, 1);
    expect(r.stderr).toContain("fake.fail");
    expect(r.stderr).toContain("unhandled failure");
  });

  test("the call global and the tools object reach the same server as the namespace", async () => {
    const r = await mcpx(sb, [
      "exec",
      'console.log(await call("fake", "echo", { message: "via call" })); console.log(await ' +
        'tools.fake.echo({ message: "via tools" })); console.log(await tools["fake"].get_sum({ values: [2, 2] }))',
    ]);
    expect(r.stdout).toBe("via call\nvia tools\n4\n");
    expectExit(r, 0);
  });

  test("server stderr does not reach the terminal's stderr by default", async () => {
    const r = await mcpx(sb, ["exec", 'console.log(await fake.echo({ message: "started" }))']);
    expect(r.stdout).toBe("started\n");
    expect(r.stderr).not.toContain(STDERR_MARKER);
    expectExit(r, 0);
  });

  test("a script that touches no server never starts one", async () => {
    const r = await mcpx(sb, ["exec", "--config", lazyConfig, 'console.log("no servers needed")']);
    expect(r.stdout).toBe("no servers needed\n");
    expectExit(r, 0);
    expect(recordedStarts(lazyRecord)).toEqual([]);
  });

  test("a crashed server gives an error naming it, and the next call in the same script reconnects", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--config",
      crashConfig,
      'try { await fake.slow({ ms: 1 }) } catch (e) { console.log("caught: " + e.message) }\nconsole.log("then: " + await fake.echo({ message: "again" }))',
    ]);
    expectExit(r, 0);
    const [caught, then] = r.stdout.trim().split("\n");
    expect(caught).toStartWith("caught: ");
    expect(caught).toContain('"fake"');
    expect(then).toBe("then: again");
    // two server processes: the one that crashed on slow, and the one the next call started
    const starts = recordedStarts(crashRecord);
    expect(starts.length).toBe(2);
    expect(recordedCalls(crashRecord, "slow").map((c) => c.pid)).toEqual([starts[0]!.pid]);
    expect(recordedCalls(crashRecord, "echo").map((c) => c.pid)).toEqual([starts[1]!.pid]);
  });
});

describe.concurrent("upstream errors are classified by the SDK's codes, never by their words", () => {
  test(
    "a server's JSON-RPC error that says 'Request timed out' (even with the timeout code) is " + "UPSTREAM_ERROR, and the healthy server keeps serving",
    async () => {
      const r = await mcpx(sb, [
        "exec",
        "--config",
        rpcConfig,
        `${errorOf('fake.rpc_error({ code: -32001, message: "Request timed out" })')}\nconsole.log(await fake.echo({ message: "still here" }))`,
      ]);
      expectExit(r, 0);
      const [error, after] = r.stdout.trim().split("\n");
      expect(JSON.parse(error!)).toMatchObject({ code: "UPSTREAM_ERROR" });
      expect(JSON.parse(error!).message).toContain("Request timed out");
      expect(after).toBe("still here");
      // one server process served both calls: it was not stopped as "hung"
      expect(recordedStarts(rpcRecord).length).toBe(1);
    },
  );

  test("a real timeout is still UPSTREAM_TIMEOUT, and the server is told that call is cancelled", async () => {
    const r = await mcpx(sb, ["exec", "--config", timeoutConfig, "--mcp-call-timeout", "1500ms", errorOf("fake.slow({ ms: 8000 })")]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    // the cancellation names the request the server received (mcpx's own tools/call path, lean-request.ts)
    expect(recordedCancels(timeoutRecord)).toEqual([
      { event: "cancelled", tool: "slow", reason: expect.stringContaining("timed out"), pid: expect.any(Number) },
    ]);
  });

  test("a call that hangs after calls answered in time still times out, at its own deadline, and only it is cancelled", async () => {
    // the requests in flight share one timer (lean-request.ts), armed for the first call's deadline: the
    // hung call starts after that call was answered, so its deadline comes after the timer first fires
    const script = [
      'const first = await fake.echo({ message: "a" })',
      "const second = await fake.slow({ ms: 700 })",
      `const third = await fake.slow({ ms: 8000 }).then(() => "answered", (e) => e.code)`,
      "console.log(JSON.stringify([first, second, third]))",
    ].join("; ");
    const r = await mcpx(sb, ["exec", "--config", laterTimeoutConfig, "--mcp-call-timeout", "1500ms", script]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual(["a", "done", "UPSTREAM_TIMEOUT"]);
    expect(recordedCancels(laterTimeoutRecord)).toEqual([
      { event: "cancelled", tool: "slow", reason: expect.stringContaining("timed out"), pid: expect.any(Number) },
    ]);
  });

  test("concurrent calls of different tools each get their own answer, errors included", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--config",
      concurrentConfig,
      `const out = await Promise.allSettled([fake.slow({ ms: 300 }), fake.echo({ message: "a" }), fake.rpc_error({ code: -32602, message: "bad" }),
        fake.add({ a: 2, b: 3 }), fake.bytes({ size: 300000 }), fake.echo({ message: "b" })]);
      const shown = (v) => (typeof v === "string" && v.length > 99 ? v.length : v);
      console.log(JSON.stringify(out.map((o) => (o.status === "fulfilled" ? shown(o.value) : o.reason.code))))`,
    ]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual(["done", "a", "UPSTREAM_ERROR", { sum: 5 }, 300000, "b"]);
  });
});

describe.concurrent("lifecycle hook tools (`_` names) are invisible and uncallable", () => {
  test("mcpx ls fake leaves them out, and its count excludes them", async () => {
    const text = await mcpx(sb, ["ls", "fake"]);
    expectExit(text, 0);
    const lines = text.stdout.trim().split("\n");
    expect(lines.length).toBe(VISIBLE_FAKE_TOOLS);
    for (const h of HOOK_TOOLS) expect(text.stdout).not.toContain(h);
    const json = await mcpx(sb, ["ls", "fake", "--json"]);
    const [row] = JSON.parse(json.stdout) as Array<{ server: string; count: number; tools: Array<{ name: string }> }>;
    expect(row!.server).toBe("fake");
    expect(row!.count).toBe(VISIBLE_FAKE_TOOLS);
    expect(row!.tools.length).toBe(VISIBLE_FAKE_TOOLS);
    expect(row!.tools.filter((t) => t.name.startsWith("_"))).toEqual([]);
  });

  test("mcpx types fake leaves them out", async () => {
    const r = await mcpx(sb, ["types", "fake"]);
    expectExit(r, 0);
    expect(r.stdout).toContain("echo");
    expect(r.stdout).toContain("get_sum");
    for (const h of HOOK_TOOLS) expect(r.stdout).not.toContain(h);
  });

  test("the mcpx-globals.d.ts written beside a file script leaves them out", async () => {
    sb.write("typed/script.ts", 'export default async () => await fake.echo({ message: "typed" });\n');
    const r = await mcpx(sb, ["run", "typed/script.ts"]);
    expect(r.stdout).toBe("typed\n");
    const dts = readFileSync(join(sb.dir, "typed/mcpx-globals.d.ts"), "utf8");
    expect(dts).toContain("echo");
    expect(dts).toContain("get_sum");
    for (const h of HOOK_TOOLS) expect(dts).not.toContain(h);
  });

  test("calling one gives exactly the error an unknown tool gives, and the server never receives it", async () => {
    // `_secret` through every spelling a script has; no start line either: the server is never contacted
    const hidden = await mcpx(sb, [
      "exec",
      "--config",
      secretConfig,
      `${errorOf("fake._secret({})")}\n${errorOf('call("fake", "_secret", {})')}\n${errorOf("tools.fake._secret({})")}`,
    ]);
    const unknown = await mcpx(sb, [
      "exec",
      "--config",
      unknownConfig,
      `${errorOf("fake.no_such_tool({})")}\n${errorOf('call("fake", "no_such_tool", {})')}\n${errorOf("tools.fake.no_such_tool({})")}`,
    ]);
    expectExit(hidden, 0);
    expectExit(unknown, 0);
    const hiddenErrors = hidden.stdout.trim().split("\n");
    const unknownErrors = unknown.stdout.trim().split("\n");
    expect(hiddenErrors.length).toBe(3);
    expect(hiddenErrors).not.toContain("no error");
    expect(hiddenErrors.map((l) => l.replaceAll("_secret", "TOOL"))).toEqual(unknownErrors.map((l) => l.replaceAll("no_such_tool", "TOOL")));
    expect(recordedCalls(secretRecord, "_secret")).toEqual([]);
    expect(recordedStarts(secretRecord)).toEqual([]);
  });

  test("mcpx call of one fails exactly like mcpx call of an unknown tool", async () => {
    const hidden = await mcpx(sb, ["call", "--config", secretConfig, "fake._secret", "{}"]);
    const unknown = await mcpx(sb, ["call", "--config", unknownConfig, "fake.no_such_tool", "{}"]);
    expect(hidden.code).not.toBe(0);
    expectExit(hidden, unknown.code);
    expect(hidden.stdout).toBe(unknown.stdout);
    expect(hidden.stderr.replaceAll("_secret", "TOOL")).toBe(unknown.stderr.replaceAll("no_such_tool", "TOOL"));
    expect(recordedCalls(secretRecord, "_secret")).toEqual([]);
  });
});

describe.concurrent("mcpx call", () => {
  test("mcpx call fake.echo prints the unwrapped text", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", '{"message":"hi"}']);
    expect(r.stdout).toBe("hi\n");
    expectExit(r, 0);
  });

  test("mcpx call prints an object result as JSON and takes the sanitised identifier of a dashed tool", async () => {
    const add = await mcpx(sb, ["call", "fake.add", '{"a": 20, "b": 22}']);
    expect(JSON.parse(add.stdout)).toEqual({ sum: 42 });
    expectExit(add, 0);
    const sum = await mcpx(sb, ["call", "fake.get_sum", '{"values": [5, 6]}']);
    expect(sum.stdout.trim()).toBe("11");
    expectExit(sum, 0);
  });

  test("mcpx call reaches server-everything", async () => {
    const r = await mcpx(sb, ["call", "everything.echo", '{"message":"hi"}']);
    expect(r.stdout).toBe("Echo: hi\n");
    expectExit(r, 0);
  });

  test("mcpx call with arguments that are not JSON is a usage error (exit 2), before any server starts", async () => {
    const r = await mcpx(sb, ["call", "--config", badJsonConfig, "fake.echo", "{message: hi}"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("JSON");
    expect(recordedStarts(badJsonRecord)).toEqual([]);
  });

  test("mcpx call of a tool that returns isError exits 1 naming the tool", async () => {
    const r = await mcpx(sb, ["call", "fake.fail", '{"message":"call failed here"}']);
    expectExit(r, 1);
    expect(r.stderr).toContain("fake.fail");
    expect(r.stderr).toContain("call failed here");
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
