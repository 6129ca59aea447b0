// Finding only what a task needs, through the binary, against the reference servers (server-everything,
// server-filesystem, server-memory): `mcpx search QUERY` on the command line, and mcpx_search then
// mcpx_describe then mcpx_exec calling the tool found, from the SDK's client of `mcpx serve`. Tools a
// server's filter leaves out are found by neither.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { EVERYTHING, ROOT, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, serve, writeConfig, type Served } from "./support.ts";

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");

/** a sandbox with the three reference servers, the filesystem one serving its own dir and `filters` on it */
function referenceSandbox(filters: Record<string, unknown> = {}) {
  const sb = sandbox();
  const files = join(sb.dir, "files");
  mkdirSync(files, { recursive: true });
  writeConfig(sb, ".mcpx.json", {
    mcpServers: {
      everything: { command: EVERYTHING, args: [] },
      filesystem: { command: join(ROOT, "node_modules/.bin/mcp-server-filesystem"), args: [files], ...filters },
      memory: { command: join(ROOT, "node_modules/.bin/mcp-server-memory"), args: [], env: { MEMORY_FILE_PATH: join(sb.dir, "memory.jsonl") } },
    },
  });
  return { sb, files };
}

const { sb, files } = referenceSandbox();

describe("mcpx search", () => {
  test("prints the best tools across servers, best first, each with the line a script calls it by", async () => {
    const r = await mcpx(sb, ["search", "add two numbers", "--limit", "3"]);
    expectExit(r, 0);
    const rows = r.stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(3);
    expect(rows[0]).toBe("everything.get-sum\teverything.get_sum({ a: number, b: number })\tReturns the sum of two numbers");
  });

  test("several words are one query, and --json gives the hits with their scores", async () => {
    const r = await mcpx(sb, ["search", "write", "a", "file", "--json"]);
    expectExit(r, 0);
    const hits = JSON.parse(r.stdout) as Array<{ name: string; score: number; signature: string }>;
    expect(hits[0]).toMatchObject({ name: "filesystem.write_file", signature: "filesystem.write_file({ path: string, content: string })" });
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    const memory = await mcpx(sb, ["search", "remember a fact about a person", "--limit", "2", "--json"]);
    expect((JSON.parse(memory.stdout) as Array<{ name: string }>).map((h) => h.name).sort()).toEqual(["memory.add_observations", "memory.create_entities"]);
  });

  test("no query, or a --limit out of range, is exit 2 saying what it takes", async () => {
    const none = await mcpx(sb, ["search"]);
    expectExit(none, 2);
    expect(none.stderr).toContain("usage: mcpx search QUERY");
    const limit = await mcpx(sb, ["search", "file", "--limit", "x"]);
    expectExit(limit, 2);
    expect(limit.stderr).toContain("--limit x: give a whole number from 1 to 100");
  });

  test("a server that cannot list its tools is named on stderr and exits 1, and the others' hits still print", async () => {
    const broken = sandbox();
    writeConfig(broken, ".mcpx.json", { mcpServers: { everything: { command: EVERYTHING, args: [] }, gone: { command: "false", args: [] } } });
    const r = await mcpx(broken, ["search", "add two numbers", "--limit", "1"]);
    expectExit(r, 1);
    expect(r.stdout).toStartWith("everything.get-sum\t");
    expect(r.stderr).toMatch(/^mcpx search: gone was not searched: \S/m);
  });

  test("a query no tool matches prints nothing on stdout and says so on stderr", async () => {
    const r = await mcpx(sb, ["search", "xylophone"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe('mcpx search: no tool matches "xylophone": try other words, or mcpx ls to browse\n');
  });

  test("a tool the server's filter leaves out is never found", async () => {
    const filtered = referenceSandbox({ disabledTools: ["write_file"] }).sb;
    const r = await mcpx(filtered, ["search", "write a file", "--json"]);
    expectExit(r, 0);
    const names = (JSON.parse(r.stdout) as Array<{ name: string }>).map((h) => h.name);
    expect(names).not.toContain("filesystem.write_file");
    expect(names).toContain("filesystem.edit_file");
  });
});

describe("mcpx_search and mcpx_describe on mcpx serve", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(sb);
  });
  afterAll(async () => {
    await s?.close();
  });
  const call = async (name: string, args: Record<string, unknown>) => (await s.client.callTool({ name, arguments: args })) as Result;

  test("search, then describe, then mcpx_exec calling the tool found writes the file", async () => {
    const found = await call("mcpx_search", { query: "write a file", limit: 3 });
    expect(found.isError).toBeFalsy();
    const tools = found.structuredContent!.tools as Array<{ name: string; signature: string }>;
    expect(tools).toHaveLength(3);
    expect(tools[0]!.name).toBe("filesystem.write_file");
    expect(textOf(found).split("\n")[0]).toStartWith("filesystem.write_file\tfilesystem.write_file({ path: string, content: string })\t");

    const described = await call("mcpx_describe", { tools: [tools[0]!.name, "everything.get-sum"] });
    expect(described.isError).toBeFalsy();
    const decl = textOf(described);
    expect(decl).toContain('// MCP server "filesystem"');
    expect(decl).toContain("function write_file(");
    expect(decl).toContain("content: string");
    expect(decl).toContain("function get_sum(");
    // just those tools: no other tool of either server is declared
    expect(decl).not.toContain("read_text_file(");
    expect(decl).not.toContain("function echo(");

    const target = join(files, "found.txt");
    const ran = await call("mcpx_exec", { source: `await filesystem.write_file({ path: ${JSON.stringify(target)}, content: "found" }); return "ok"` });
    expect(ran.isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("found");
  });

  test("describing an unknown tool names it with the nearest tool there is, and nothing is declared", async () => {
    const r = await call("mcpx_describe", { tools: ["filesystem.write_fiel", "everything.get-sum"] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      'unknown tool: "filesystem.write_fiel": no visible tool of filesystem is named "write_fiel" (did you mean filesystem.write_file?) ' +
        "(mcpx_search finds tools by words)",
    );
    const server = await call("mcpx_describe", { tools: ["filesytem.read_file"] });
    expect(textOf(server)).toContain(
      '"filesytem.read_file": no configured server starts it (servers: everything, filesystem, memory) (did you mean filesystem?)',
    );
  });

  test("arguments are checked: an empty tools list, an unknown key and a limit out of range are isError naming the key", async () => {
    expect(textOf(await call("mcpx_describe", { tools: [] }))).toContain("tools: must name at least one tool");
    expect(textOf(await call("mcpx_search", { query: "file", limt: 2 }))).toContain('unknown key "limt": it takes query, limit (did you mean limit?)');
    expect(textOf(await call("mcpx_search", { query: "file", limit: 0 }))).toContain("limit: must be at least 1");
    expect(textOf(await call("mcpx_search", { query: "  " }))).toContain("query: must have a word in it");
  });
});

describe("hook tools on mcpx serve", () => {
  test("a hook tool is neither found nor described, even by its own name", async () => {
    const hooked = sandbox();
    writeConfig(hooked, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    const s = await serve(hooked);
    try {
      // the fake server's _secret is named by exactly this word: it would be the only hit if it were searched
      const found = (await s.client.callTool({ name: "mcpx_search", arguments: { query: "secret" } })) as Result;
      expect(found.structuredContent!.tools).toEqual([]);
      const described = (await s.client.callTool({ name: "mcpx_describe", arguments: { tools: ["fake._secret"] } })) as Result;
      expect(described.isError).toBe(true);
      expect(textOf(described)).toContain('no visible tool of fake is named "_secret"');
    } finally {
      await s.close();
    }
  });
});

describe("a server's tool filter on mcpx serve", () => {
  test("a tool disabledTools leaves out is neither found nor described", async () => {
    const filtered = referenceSandbox({ disabledTools: ["write_file"] }).sb;
    const s = await serve(filtered);
    try {
      const found = (await s.client.callTool({ name: "mcpx_search", arguments: { query: "write a file" } })) as Result;
      const names = (found.structuredContent!.tools as Array<{ name: string }>).map((t) => t.name);
      expect(names).not.toContain("filesystem.write_file");
      expect(names).toContain("filesystem.edit_file");
      const described = (await s.client.callTool({ name: "mcpx_describe", arguments: { tools: ["filesystem.write_file"] } })) as Result;
      expect(described.isError).toBe(true);
      expect(textOf(described)).toContain('no visible tool of filesystem is named "write_file"');
    } finally {
      await s.close();
    }
  });
});
