// Ad-hoc servers from the command line: how --stdio is split and how an unnamed server is named.

import { describe, expect, test } from "bun:test";
import { adHocName, adHocServer, hostName, splitCommand } from "../../lib/config/ad-hoc.ts";

const fail = (m: string): never => {
  throw new Error(m);
};

describe("--stdio is split like a shell would, with no shell", () => {
  test("quotes, escapes and $VAR are understood", () => {
    expect(splitCommand(`node "my server.js" --token $TOK 'a b' c\\ d`, { TOK: "t1" }, fail)).toEqual(["node", "my server.js", "--token", "t1", "a b", "c d"]);
  });

  test("a shell operator is refused, naming it, since nothing would run it", () => {
    expect(() => splitCommand("server | tee log", {}, fail)).toThrow('"|" is shell syntax');
    expect(() => splitCommand("a && b", {}, fail)).toThrow('"&&" is shell syntax');
    expect(() => splitCommand("", {}, fail)).toThrow("--stdio needs a command");
  });
});

describe("an ad-hoc server's name", () => {
  test.each([
    [["npx", "-y", "@modelcontextprotocol/server-everything"], "everything"],
    [["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/tmp"], "filesystem"],
    [["uvx", "mcp-server-git"], "git"],
    [["python3", "weather_server.py"], "weather_server"],
    [["bun", "fixtures/servers/fake-server.ts"], "fake"],
    [["./bin/my.tool"], "my-tool"],
  ])("%p is named %p", (argv, name) => {
    expect(adHocName(argv)).toBe(name);
  });

  test("an HTTP server is named by its host", () => {
    expect(hostName(new URL("https://mcp.example.com/mcp"))).toBe("mcp-example-com");
    expect(hostName(new URL("http://127.0.0.1:3000/mcp"))).toBe("127-0-0-1");
  });

  test("--name wins; it must not hold a dot, and it needs --stdio or --http-url", () => {
    expect(adHocServer({ stdio: "npx x", name: "mine", env: {} }, fail)?.name).toBe("mine");
    expect(() => adHocServer({ stdio: "npx x", name: "a.b", env: {} }, fail)).toThrow("--name a.b");
    expect(() => adHocServer({ name: "mine", env: {} }, fail)).toThrow("--name names an ad-hoc server");
    expect(() => adHocServer({ httpUrl: "ftp://x", env: {} }, fail)).toThrow("http:// or https://");
  });
});
