// One-shot ergonomics (issue 10): `mcpx call SERVER.TOOL key=value …` coerced and checked by the
// tool's input schema, ad-hoc servers (--stdio, --http-url) with no config, did-you-mean for unknown
// names, and the error prefix every failure shares.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
const RECORD = join(sb.dir, "calls.jsonl");
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: RECORD }) } });

describe.concurrent("mcpx call key=value", () => {
  test("values are coerced by the input schema: numbers for add, a string stays a string for echo", async () => {
    const add = await mcpx(sb, ["call", "fake.add", "a=20", "b=22"]);
    expectExit(add, 0);
    expect(JSON.parse(add.stdout)).toEqual({ sum: 42 });
    const echo = await mcpx(sb, ["call", "fake.echo", "message=123"]);
    expectExit(echo, 0);
    expect(echo.stdout).toBe("123\n");
  });

  test("key:=JSON gives JSON, and an array key takes JSON text", async () => {
    const r = await mcpx(sb, ["call", "fake.nested", "mode=fast", 'target:={"id":7}', 'items=[{"name":"x","count":2}]']);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ mode: "fast", target: { id: 7 }, items: [{ name: "x", count: 2 }] });
  });

  test("a value the schema's type cannot take is exit 2 naming the key, and the server never sees the call", async () => {
    const r = await mcpx(sb, ["call", "fake.add", "a=twenty", "b=1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('"a" takes number');
    expect(recordedCalls(RECORD, "add").filter((c) => (c.args as { a?: unknown }).a === "twenty")).toEqual([]);
  });

  test("arguments the schema refuses are exit 2 in the schema's words, and the server never sees the call", async () => {
    const missing = await mcpx(sb, ["call", "fake.add", "a=1"]);
    expectExit(missing, 2);
    expect(missing.stderr).toContain('argument "b" is required (number)');
    const badEnum = await mcpx(sb, ["call", "fake.nested", "mode=medium", "target=x", "items:=[]"]);
    expectExit(badEnum, 2);
    expect(badEnum.stderr).toContain('argument "mode" must be equal to one of the allowed values: "fast", "slow"');
    const json = await mcpx(sb, ["call", "fake.add", '{"a": 1, "b": "2"}']);
    expectExit(json, 2);
    expect(json.stderr).toContain('argument "b" must be number');
    expect(recordedCalls(RECORD, "nested").filter((c) => (c.args as { mode?: unknown }).mode === "medium")).toEqual([]);
    expect(recordedCalls(RECORD, "add").filter((c) => (c.args as { b?: unknown }).b === "2" || (c.args as { b?: unknown }).b === undefined)).toEqual([]);
  });

  test("- still reads the arguments object from stdin", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", "-"], { stdin: '{"message":"from stdin"}' });
    expectExit(r, 0);
    expect(r.stdout).toBe("from stdin\n");
  });

  test("- or a JSON object mixed with key=value items is exit 2 saying what to give", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", "-", "message=x"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("cannot be mixed with other arguments");
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
