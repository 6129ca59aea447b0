// The ranking behind mcpx search and mcpx_search, over the tool lists the reference servers
// (server-everything, server-filesystem, server-memory) publish, as `mcpx ls --json` read them (one
// server a line: their descriptions are longer than a line of a .json file may be).

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { searchTools, stem, tokens, type SearchableServer } from "../../lib/mcp/tool-search.ts";

const SERVERS = readFileSync(join(import.meta.dir, "../../fixtures/catalogue/reference-servers.jsonl"), "utf8")
  .trimEnd()
  .split("\n")
  .map((line) => JSON.parse(line) as SearchableServer);
const ranked = (query: string, limit?: number) => searchTools(SERVERS, query, limit).map((h) => `${h.server}.${h.tool.name}`);

describe("tool search", () => {
  test("names are split at camelCase, snake, kebab and dots, and plurals are stemmed", () => {
    expect(tokens("list_directory_with_sizes")).toEqual(["list", "directory", "size"]);
    expect(tokens("get-resource-links")).toEqual(["get", "resource", "link"]);
    expect(tokens("entityType excludePatterns fs.read_file")).toEqual(["entity", "type", "exclude", "pattern", "fs", "read", "file"]);
    expect(tokens("HTTPServer")).toEqual(["http", "server"]);
    expect([stem("entities"), stem("files"), stem("numbers"), stem("class"), stem("status")]).toEqual(["entity", "file", "number", "class", "status"]);
  });

  test('"write a file" ranks filesystem write_file first', () => {
    expect(ranked("write a file")[0]).toBe("filesystem.write_file");
  });

  test('"remember a fact about a person" ranks memory add_observations and create_entities first', () => {
    expect(ranked("remember a fact about a person").slice(0, 2).sort()).toEqual(["memory.add_observations", "memory.create_entities"]);
  });

  test('"add two numbers" ranks everything get-sum first, above memory add_observations', () => {
    const r = ranked("add two numbers");
    expect(r[0]).toBe("everything.get-sum");
    expect(r).toContain("memory.add_observations");
  });

  test("parameter names count: a query naming a tool's parameters finds it", () => {
    expect(ranked("source destination")[0]).toBe("filesystem.move_file");
    expect(ranked("entityNames")[0]).toBe("memory.delete_entities");
  });

  test("intents in other words reach the tools that do them", () => {
    expect(ranked("rename a file")[0]).toBe("filesystem.move_file");
    expect(ranked("search the knowledge graph")[0]).toBe("memory.search_nodes");
    expect(ranked("environment variables")[0]).toBe("everything.get-env");
    expect(ranked("list files in a folder")[0]).toBe("filesystem.list_directory");
  });

  test("a query that matches no tool, or has only stop words, finds nothing", () => {
    expect(ranked("xylophone quartz")).toEqual([]);
    expect(ranked("the of a")).toEqual([]);
    expect(ranked("")).toEqual([]);
  });

  test("the limit caps the hits, best first, scores never rising", () => {
    const hits = searchTools(SERVERS, "file", 3);
    expect(hits).toHaveLength(3);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(searchTools(SERVERS, "file", 0)).toEqual([]);
  });

  test("ties go by server order, then tool name, whatever order the tools were listed in", () => {
    const tool = (name: string) => ({ name, description: "Frobnicates a widget" });
    const servers = [
      { server: "zeta", tools: [tool("b-frob"), tool("a-frob")] },
      { server: "alpha", tools: [tool("c-frob")] },
    ];
    const order = searchTools(servers, "frobnicates widget").map((h) => `${h.server}.${h.tool.name}`);
    // a sort by server name would put alpha first; listing order would put b-frob before a-frob
    expect(order).toEqual(["zeta.a-frob", "zeta.b-frob", "alpha.c-frob"]);
    const reversed = searchTools([{ server: "zeta", tools: [tool("a-frob"), tool("b-frob")] }, servers[1]!], "frobnicates widget");
    expect(reversed.map((h) => h.tool.name)).toEqual(["a-frob", "b-frob", "c-frob"]);
  });

  test("the same catalogue and query give the same hits and scores every time", () => {
    const once = searchTools(SERVERS, "read a text file");
    expect(searchTools(structuredClone(SERVERS), "read a text file")).toEqual(once);
  });
});
