// A tool's outputSchema is checked when the tool is first called, not when the catalogue is listed
// (a 500-tool server's list costs no schema compiles), and a result that breaks it fails the
// call as the SDK's own callTool fails it. The server here, fixtures/servers/lying-server.ts, declares
// `add` with an outputSchema {sum: number} and answers as LYING_OUTPUT says: McpServer would have
// refused to send a wrong answer, the low-level Server sends it.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUN, ROOT, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const LYING = join(ROOT, "fixtures/servers/lying-server.ts");
const sb = sandbox();
const MODES = ["right", "wrong", "missing", "error"] as const;
for (const mode of MODES) writeConfig(sb, `${mode}/.mcpx.json`, { mcpServers: { lying: { command: BUN, args: [LYING], env: { LYING_OUTPUT: mode } } } });

/** what the SDK's own Client.callTool says of the same answer: the message mcpx must carry */
async function sdkSays(mode: (typeof MODES)[number]): Promise<string> {
  const client = new Client({ name: "output-schema-test", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: BUN, args: [LYING], env: { ...process.env, LYING_OUTPUT: mode } as Record<string, string>, stderr: "ignore" }),
  );
  try {
    await client.listTools();
    const r = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    return JSON.stringify(r.structuredContent ?? r.content);
  } catch (err) {
    return (err as Error).message;
  } finally {
    await client.close();
  }
}

const CATCH = "try { return await lying.add({ a: 1, b: 2 }) } catch (e) { return { name: e.name, code: e.code, message: e.message } }";

describe("a result that breaks its tool's outputSchema", () => {
  test("a result that keeps it is the structured content, through call and exec", async () => {
    const cwd = join(sb.dir, "right");
    const call = await mcpx(sb, ["call", "lying.add", '{"a":1,"b":2}'], { cwd });
    expectExit(call, 0);
    expect(JSON.parse(call.stdout)).toEqual({ sum: 3 });
    const exec = await mcpx(sb, ["exec", "--json", "return await lying.add({ a: 1, b: 2 })"], { cwd });
    expectExit(exec, 0);
    expect(JSON.parse(exec.stdout).result).toEqual({ sum: 3 });
  });

  test.each([
    ["wrong", "Structured content does not match the tool's output schema: data/sum must be number"],
    ["missing", "Tool add has an output schema but did not return structured content"],
  ] as const)("%s: the call fails as the SDK's callTool fails it, and the script can catch it", async (mode, said) => {
    expect(await sdkSays(mode)).toContain(said);
    const cwd = join(sb.dir, mode);
    const call = await mcpx(sb, ["call", "lying.add", '{"a":1,"b":2}'], { cwd });
    expect(call.code).not.toBe(0);
    expect(call.stdout).toBe("");
    expect(call.stderr).toContain(said);
    const exec = await mcpx(sb, ["exec", "--json", CATCH], { cwd });
    expectExit(exec, 0);
    expect(JSON.parse(exec.stdout).result).toEqual({ name: "ToolError", code: "UPSTREAM_ERROR", message: expect.stringContaining(said) });
  });

  test("isError without structured content is allowed: the tool's own error, not a schema error", async () => {
    const cwd = join(sb.dir, "error");
    const exec = await mcpx(sb, ["exec", "--json", CATCH], { cwd });
    expectExit(exec, 0);
    expect(JSON.parse(exec.stdout).result).toEqual({ name: "ToolError", code: "TOOL_ERROR", message: "lying.add failed: add failed on purpose" });
  });
});
