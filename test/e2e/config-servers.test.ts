// mcpx config add | remove | list: servers added and removed by command in ./.mcpx.json (or
// the user's file with --user), comments kept, a name already there refused without --force, and the
// file's trust said: a file mcpx created or one trusted as it was stays trusted, an untrusted one stays
// untrusted (docs/decisions/0015, amendment).

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, FAKE_SERVER, sandbox } from "./harness.ts";
import { expectExit, mcpx, shipped } from "./support.ts";

describe("mcpx config add", () => {
  test("a stdio server added in an empty directory is written to ./.mcpx.json, trusted, and callable at once", async () => {
    const sb = sandbox();
    const add = await mcpx(sb, ["config", "add", "fake", "--env", "FAKE_MCP_NAME=added", "--", BUN, FAKE_SERVER]);
    expectExit(add, 0);
    const file = join(sb.dir, ".mcpx.json");
    expect(add.stdout).toBe(
      `added fake to ${file}\n${file}: trusted as it is now (mcpx wrote it at your command; \`mcpx trust --revoke ${file}\` takes that back)\n`,
    );
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ mcpServers: { fake: { command: BUN, args: [FAKE_SERVER], env: { FAKE_MCP_NAME: "added" } } } });
    // a trust the add did not give would withhold the server: "not trusted, not started"
    const call = await mcpx(sb, ["call", "fake.echo", "message=hi"]);
    expectExit(call, 0);
    expect(call.stdout).toContain("hi");
  });

  test("adding to a trusted file keeps its comments and its trust; adding to an untrusted one says it is not trusted and how to trust it", async () => {
    const sb = sandbox();
    const trusted = sb.write(".mcpx.json", '// the team\'s servers\n{\n  "mcpServers": {} // none yet\n}\n');
    const a = await mcpx(sb, ["config", "add", "web", "--url", "http://127.0.0.1:9/mcp"]);
    expectExit(a, 0);
    const text = readFileSync(trusted, "utf8");
    expect(text).toContain("// the team's servers");
    expect(text).toContain("// none yet");
    expect(a.stdout).toContain(`${trusted}: trusted as it is now`);

    // a cloned repository's file, never trusted: the add does not make the rest of it the user's
    const repo = shipped(sb, "repo/.mcpx.json", { script: { before: ['console.log("REPO")'] } });
    const cwd = join(sb.dir, "repo");
    const b = await mcpx(sb, ["config", "add", "fake", "--", BUN, FAKE_SERVER], { cwd });
    expectExit(b, 0);
    expect(b.stdout).toContain(`${repo}: not trusted: it held what you had not trusted before this change`);
    expect(b.stdout).toContain(`run \`mcpx trust ${repo}\``);
    const list = await mcpx(sb, ["config", "list"], { cwd });
    expect(list.stdout).toContain(`fake\tstdio\t${BUN} ${FAKE_SERVER}\t${repo}\tnot trusted: run \`mcpx trust ${repo}\`\n`);
  });

  test("a name already in the file is refused with exit 2 naming --force, and --force replaces it", async () => {
    const sb = sandbox();
    expectExit(await mcpx(sb, ["config", "add", "fake", "--", BUN, FAKE_SERVER]), 0);
    const again = await mcpx(sb, ["config", "add", "fake", "--url", "http://127.0.0.1:9/mcp"]);
    expectExit(again, 2);
    expect(again.stderr).toContain("key mcpServers.fake: a server of that name is already there: add --force to replace it");
    expect(JSON.parse(readFileSync(join(sb.dir, ".mcpx.json"), "utf8")).mcpServers.fake.command).toBe(BUN);
    expectExit(await mcpx(sb, ["config", "add", "fake", "--force", "--url", "http://127.0.0.1:9/mcp"]), 0);
    expect(JSON.parse(readFileSync(join(sb.dir, ".mcpx.json"), "utf8")).mcpServers.fake).toEqual({ url: "http://127.0.0.1:9/mcp" });
  });

  test("--url with --header writes the header as given, ${VAR} unexpanded, and list shows the url without the header", async () => {
    const sb = sandbox();
    const r = await mcpx(sb, ["config", "add", "notes", "--url", "https://notes.example/mcp", "--header", "Authorization=Bearer ${TOKEN}", "--json"]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      action: "add",
      name: "notes",
      trusted: true,
      entry: { url: "https://notes.example/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
    });
    const list = await mcpx(sb, ["config", "list", "--json"], { env: { TOKEN: "s3cret" } });
    expectExit(list, 0);
    expect(JSON.parse(list.stdout)).toEqual([
      { name: "notes", transport: "http", target: "https://notes.example/mcp", file: join(sb.dir, ".mcpx.json"), state: "ok" },
    ]);
    expect(list.stdout).not.toContain("s3cret");
  });

  test("--user writes the user's config, which is trusted without asking", async () => {
    const sb = sandbox();
    const r = await mcpx(sb, ["config", "add", "fake", "--user", "--", BUN, FAKE_SERVER]);
    expectExit(r, 0);
    const user = join(sb.home, ".config/mcpx/config.json");
    expect(r.stdout).toBe(`added fake to ${user}\n${user}: your user config: trusted without asking\n`);
    expect(JSON.parse(readFileSync(user, "utf8")).mcpServers.fake.command).toBe(BUN);
  });

  test("a flag the action does not take, a header without --url, a url that is not http and a missing command each exit 2 naming the fix", async () => {
    const sb = sandbox();
    const cases: Array<[string[], string]> = [
      [["config", "import", "--url", "http://x"], "--url is not a flag of mcpx config import (it takes --json)"],
      [["config", "add", "x", "--header", "A=b", "--", "cmd"], "--header goes with --url (an http server)"],
      [["config", "add", "x", "--url", "ftp://x"], '--url "ftp://x": give an http:// or https:// URL'],
      [["config", "add", "x"], "no server given: usage: mcpx config add NAME"],
      [["config", "add", "x", "--env", "NOEQUALS", "--", "cmd"], '--env "NOEQUALS": give NAME=VALUE'],
      [["config", "rm", "x"], 'unknown action "rm"'],
    ];
    for (const [args, message] of cases) {
      const r = await mcpx(sb, args);
      expect({ args, code: r.code, said: r.stderr.includes(message) }).toEqual({ args, code: 2, said: true });
    }
  });
});

describe("mcpx config remove and list", () => {
  test("remove takes the entry out and keeps the rest; a name the file lacks exits 2 naming the servers it has", async () => {
    const sb = sandbox();
    const file = sb.write(
      ".mcpx.json",
      '{\n  // kept\n  "mcpServers": {\n    "a": { "url": "http://127.0.0.1:9/a" },\n    "b": { "url": "http://127.0.0.1:9/b" }\n  }\n}\n',
    );
    const r = await mcpx(sb, ["config", "remove", "a"]);
    expectExit(r, 0);
    expect(r.stdout).toContain(`removed a from ${file}\n${file}: trusted as it is now`);
    expect(readFileSync(file, "utf8")).toContain("// kept");
    const servers = await mcpx(sb, ["config", "list", "--json"]);
    expect(JSON.parse(servers.stdout).map((s: { name: string }) => s.name)).toEqual(["b"]);
    const missing = await mcpx(sb, ["config", "remove", "nosuch"]);
    expectExit(missing, 2);
    expect(missing.stderr).toContain("key mcpServers.nosuch: no server of that name in this file (it has b)");
  });

  test("list shows imported servers with their tool's kind, and a broken entry with its error on one line", async () => {
    const sb = sandbox();
    sb.write(".mcp.json", JSON.stringify({ mcpServers: { claude: { command: BUN, args: [FAKE_SERVER] } } }));
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { bad: { command: 42 } } }));
    const r = await mcpx(sb, ["config", "list"]);
    expectExit(r, 0);
    expect(r.stdout).toContain(`claude\tstdio\t${BUN} ${FAKE_SERVER}\t${join(sb.dir, ".mcp.json")} (claude-code)\tok\n`);
    expect(r.stdout).toMatch(/^bad\tstdio\t42\t.*\.mcpx\.json\tbroken: .*key mcpServers\.bad\.command: must be a string/m);
  });
});
