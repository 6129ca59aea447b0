// The published servers' input schemas are ones lib/mcp/surely-valid.ts knows, so a call to them with
// valid arguments never loads ajv: all of server-filesystem's and server-memory's tools, and all of
// server-everything's but those with a `format` (ajv-formats checks those).

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { known } from "../../lib/mcp/surely-valid.ts";
import { EVERYTHING, ROOT } from "./harness.ts";

const dir = mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "surely-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function schemasOf(command: string, args: string[]): Promise<Array<{ name: string; schema: Record<string, unknown> }>> {
  const client = new Client({ name: "surely-valid-test", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  try {
    const { tools } = await client.listTools();
    return tools.map((t) => {
      const { $schema: _, ...schema } = t.inputSchema as Record<string, unknown>;
      return { name: t.name, schema };
    });
  } finally {
    await client.close();
  }
}

test.each([
  ["server-filesystem", join(ROOT, "node_modules/.bin/mcp-server-filesystem"), [dir]],
  ["server-memory", join(ROOT, "node_modules/.bin/mcp-server-memory"), []],
  ["server-everything", EVERYTHING, []],
] as const)("%s: every tool's input schema is known, but for formats", async (_name, command, args) => {
  const tools = await schemasOf(command, [...args]);
  expect(tools.length).toBeGreaterThan(5);
  const unknown = tools.filter((t) => !known(t.schema) && !JSON.stringify(t.schema).includes('"format"')).map((t) => t.name);
  expect(unknown).toEqual([]);
});
