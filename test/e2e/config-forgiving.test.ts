// Forgiving config (docs/decisions/0009): one broken server entry no longer fails every command. A
// command that does not use it runs with one warning naming the entry and the fix; using it is the
// error, naming the entry, file:line and the fix. Top-level mistakes stay errors. Plus legacy
// HTTP+SSE servers, against the fixture's SSEServerTransport.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BUN, FAKE_SERVER, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

// each broken entry, and the text on the line the error must point at
const BROKEN = {
  "an unset ${TOKEN}": [{ command: "x", env: { T: "${MCPX_TEST_UNSET_TOKEN}" } }, "MCPX_TEST_UNSET_TOKEN"],
  "a malformed entry": [{ command: "x", agrs: [] }, '"agrs"'],
  "an unknown type": [{ type: "websocket", url: "ws://x.test" }, "websocket"],
} as const;

for (const [what, [entry, marker]] of Object.entries(BROKEN)) {
  describe(`a config with ${what}`, () => {
    const sb = sandbox();
    const file = writeConfig(sb, ".mcpx.json", { mcpServers: { ok: fakeServer(), bad: entry } });
    // the line of the offending key in the file writeConfig wrote
    const line =
      1 +
      readFileSync(file, "utf8")
        .split("\n")
        .findIndex((l) => l.includes(marker));

    test("a script that does not touch it runs, with one warning naming the entry", async () => {
      const r = await mcpx(sb, ["exec", 'console.log(await ok.echo({ message: "fine" }))']);
      expectExit(r, 0);
      expect(r.stdout).toBe("fine\n");
      expect(r.stderr.match(/broken and cannot be used/g)?.length).toBe(1);
      expect(r.stderr).toContain(`bad: ${file}:`);
    });

    test("a script that calls it fails naming the entry and file:line", async () => {
      const r = await mcpx(sb, ["exec", 'await bad.echo({ message: "no" })']);
      expectExit(r, 1);
      expect(r.stderr).toContain(`server "bad" cannot be used: its entry is broken: ${file}:${line}:`);
    });

    test("mcpx call and mcpx ls NAME fail on it; mcpx ls lists it as broken and still lists the rest", async () => {
      const [call, one, all] = await Promise.all([mcpx(sb, ["call", "bad.echo", "{}"]), mcpx(sb, ["ls", "bad"]), mcpx(sb, ["ls"])]);
      expectExit(call, 1);
      expect(call.stderr).toContain(`server "bad" cannot be used: its entry is broken: ${file}:${line}:`);
      expectExit(one, 1);
      expect(one.stderr).toContain(`${file}:${line}:`);
      expectExit(all, 0);
      expect(all.stdout).toBe(`ok\t13 tools\t${file}\nbad\tbroken (see the warning above)\t${file}\n`);
    });
  });
}

describe("what stays an error", () => {
  test("an unknown top-level key is still exit 2", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", { mcpServers: { ok: fakeServer() }, mcpServer: {} });
    const r = await mcpx(sb, ["ls"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('unknown key "mcpServer"');
  });

  test("mcpServers that is not an object is still exit 2 in mcpx's own file", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", { mcpServers: [] });
    expectExit(await mcpx(sb, ["ls"]), 2);
  });

  test("an imported file that does not parse is a warning naming the file, never an error", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", { mcpServers: { ok: fakeServer() } });
    const bad = sb.write("home/.cursor/mcp.json", "{ this is not json");
    const toml = sb.write("home/.codex/config.toml", "[mcp_servers.x\ncommand = ");
    const r = await mcpx(sb, ["exec", 'console.log(await ok.echo({ message: "fine" }))']);
    expectExit(r, 0);
    expect(r.stdout).toBe("fine\n");
    expect(r.stderr).toContain(`${bad}:1:`);
    expect(r.stderr).toContain("this cursor file does not parse, so its servers are not imported");
    expect(r.stderr).toContain(`${toml}:`);
  });
});

describe("a legacy HTTP+SSE server", () => {
  const sb = sandbox();
  let server: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  let base = "";

  beforeAll(async () => {
    server = Bun.spawn([BUN, FAKE_SERVER], { env: { ...sb.env, FAKE_MCP_HTTP_PORT: "0", FAKE_MCP_SSE: "1" }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    let seen = "";
    for await (const chunk of server.stderr) {
      seen += new TextDecoder().decode(chunk);
      const m = /listening (\d+)/.exec(seen);
      if (m) {
        base = `http://127.0.0.1:${m[1]}`;
        break;
      }
    }
    writeConfig(sb, ".mcpx.json", {
      mcpServers: { bysuffix: { url: `${base}/sse` }, typed: { type: "sse", url: `${base}/sse?x=1`, headers: { "X-Test": "1" } } },
    });
  });

  afterAll(async () => {
    server.kill("SIGTERM");
    await server.exited;
  });

  test('"type": "sse" and a url ending in /sse both reach its tools', async () => {
    const r = await mcpx(sb, ["exec", 'console.log(await bysuffix.echo({ message: "one" })); console.log(JSON.stringify(await typed.add({ a: 2, b: 3 })))']);
    expectExit(r, 0);
    expect(r.stdout).toBe('one\n{"sum":5}\n');
  });

  test("--http-url ending in /sse speaks legacy SSE, as a config url ending in /sse does", async () => {
    const r = await mcpx(sb, ["call", "--http-url", `${base}/sse`, "--name", "adhoc", "adhoc.echo", "message=ad-hoc"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("ad-hoc\n");
  });

  test('an entry typed "http" whose server answers Streamable HTTP with 404 falls back to legacy SSE, as the SDK advises', async () => {
    const other = sandbox();
    writeConfig(other, ".mcpx.json", { mcpServers: { mistyped: { type: "http", url: `${base}/sse` } } });
    const r = await mcpx(other, ["call", "mistyped.echo", "message=fell back"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("fell back\n");
  });

  test("a URL that speaks neither says what the server answered each, without its page, and how to fix it", async () => {
    const r = await mcpx(sb, ["call", "--http-url", `${base}/nothing-here`, "--name", "lost", "lost.echo", "message=x"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("HTTP 404 to a Streamable HTTP POST");
    expect(r.stderr).toContain("legacy SSE");
    expect(r.stderr).toContain("check the URL");
  });

  test("imported from Claude Code as type sse, it works the same", async () => {
    const other = sandbox();
    writeConfig(other, ".mcp.json", { mcpServers: { legacy: { type: "sse", url: `${base}/sse` } } });
    const r = await mcpx(other, ["call", "legacy.echo", '{"message": "imported"}']);
    expectExit(r, 0);
    expect(r.stdout).toBe("imported\n");
  });
});
