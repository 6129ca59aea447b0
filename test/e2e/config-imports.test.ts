// Servers the user already has (config.imports, docs/decisions/0009): every kind read where its tool
// keeps it, in an isolated HOME and project; the setting; the clash rule; origins in ls and settings;
// `mcpx config import`. All against real files and the compiled binary.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, FAKE_SERVER, fakeServer, sandbox, type Sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

/** every kind's file, each bringing one server named after its kind, in a fresh sandbox */
function everyKind(): { sb: Sandbox; proj: string } {
  const sb = sandbox();
  const proj = join(sb.dir, "proj");
  const entry = (name: string) => ({ [name]: fakeServer({ FAKE_MCP_NAME: name }) });
  writeConfig(sb, "proj/.mcp.json", { mcpServers: entry("from_claude_code") });
  writeConfig(sb, "home/.claude.json", { mcpServers: entry("from_claude_user"), projects: { [proj]: { mcpServers: entry("from_claude_local") } } });
  writeConfig(sb, "proj/.cursor/mcp.json", { mcpServers: entry("from_cursor") });
  writeConfig(sb, "home/.cursor/mcp.json", { mcpServers: entry("from_cursor_user") });
  writeConfig(sb, "proj/.vscode/mcp.json", { inputs: [], servers: { from_vscode: { type: "stdio", ...fakeServer({ WS: "${workspaceFolder}" }) } } });
  writeConfig(sb, "home/.codeium/windsurf/mcp_config.json", { mcpServers: entry("from_windsurf") });
  writeConfig(sb, "proj/opencode.json", {
    $schema: "https://opencode.ai/config.json",
    mcp: { from_opencode: { type: "local", command: [BUN, FAKE_SERVER], environment: { K: "{env:HOME}" } } },
  });
  writeConfig(sb, "home/.config/opencode/opencode.json", { mcp: { from_opencode_user: { type: "local", command: [BUN, FAKE_SERVER], enabled: true } } });
  sb.write(
    "home/.codex/config.toml",
    `# codex\n[mcp_servers.from_codex]\ncommand = ${JSON.stringify(BUN)}\nargs = [${JSON.stringify(FAKE_SERVER)}]\nenv = { A = "1" }\n`,
  );
  writeConfig(sb, "home/.config/Claude/claude_desktop_config.json", { mcpServers: entry("from_claude_desktop") });
  return { sb, proj };
}

type LsRow = { server: string; origin: string; imported?: string; count?: number; broken?: string; error?: string };

describe("every kind is read where its tool keeps it", () => {
  const { sb, proj } = everyKind();

  test("mcpx ls --json lists each kind's server with its file and kind, and starts it", async () => {
    const r = await mcpx(sb, ["ls", "--json"], { cwd: proj });
    expectExit(r, 0);
    const rows = JSON.parse(r.stdout) as LsRow[];
    const got = Object.fromEntries(rows.map((s) => [s.server, [s.imported, s.origin.replace(sb.dir, "")]]));
    expect(got).toEqual({
      from_claude_local: ["claude-code", "/home/.claude.json"],
      from_claude_code: ["claude-code", "/proj/.mcp.json"],
      from_claude_user: ["claude-code", "/home/.claude.json"],
      from_cursor: ["cursor", "/proj/.cursor/mcp.json"],
      from_cursor_user: ["cursor", "/home/.cursor/mcp.json"],
      from_vscode: ["vscode", "/proj/.vscode/mcp.json"],
      from_windsurf: ["windsurf", "/home/.codeium/windsurf/mcp_config.json"],
      from_opencode: ["opencode", "/proj/opencode.json"],
      from_opencode_user: ["opencode", "/home/.config/opencode/opencode.json"],
      from_codex: ["codex", "/home/.codex/config.toml"],
      from_claude_desktop: ["claude-desktop", "/home/.config/Claude/claude_desktop_config.json"],
    });
    for (const row of rows) expect(row.count).toBeGreaterThan(0);
    expect(r.stderr).toBe("");
  });

  test("mcpx ls text shows the file and the kind after the tool count", async () => {
    const r = await mcpx(sb, ["ls"], { cwd: proj, env: { MCPX_CONFIG_IMPORTS: "codex" } });
    expectExit(r, 0);
    expect(r.stdout).toBe(`from_codex\t13 tools\t${sb.home}/.codex/config.toml (codex)\n`);
  });

  test("a script calls imported servers; variables of each tool's own syntax are resolved", async () => {
    const r = await mcpx(
      sb,
      [
        "exec",
        "console.log(await from_vscode.env({ name: 'WS' })); console.log(await " +
          "from_opencode.env({ name: 'K' })); console.log(await from_codex.env({ name: 'A' }))",
      ],
      { cwd: proj },
    );
    expectExit(r, 0);
    expect(r.stdout).toBe(`${proj}\n${sb.home}\n1\n`);
  });

  test("mcpx settings get config.imports shows every server's file and kind", async () => {
    const r = await mcpx(sb, ["settings", "get", "config.imports", "--json"], { cwd: proj, env: { MCPX_CONFIG_IMPORTS: "cursor" } });
    expectExit(r, 0);
    const row = JSON.parse(r.stdout) as { value: string[]; origin: string; servers: Array<{ name: string; origin: string; from: string }> };
    expect(row.value).toEqual(["cursor"]);
    expect(row.origin).toBe("env:MCPX_CONFIG_IMPORTS");
    expect(row.servers).toEqual([
      { name: "from_cursor", origin: join(proj, ".cursor/mcp.json"), from: "cursor" },
      { name: "from_cursor_user", origin: join(sb.home, ".cursor/mcp.json"), from: "cursor" },
    ]);
    const text = await mcpx(sb, ["settings", "get", "config.imports"], { cwd: proj, env: { MCPX_CONFIG_IMPORTS: "cursor" } });
    expect(text.stdout).toContain(`from_cursor  ← ${join(proj, ".cursor/mcp.json")} (cursor)`);
  });
});

describe("config.imports chooses the kinds", () => {
  const { sb, proj } = everyKind();
  const names = async (env: Record<string, string>, cwd = proj) => {
    const r = await mcpx(sb, ["exec", "console.log(JSON.stringify(Object.keys(tools)))"], { cwd, env });
    expectExit(r, 0);
    return JSON.parse(r.stdout) as string[];
  };

  test("a variable names kinds; their order does not change the documented precedence", async () => {
    expect(await names({ MCPX_CONFIG_IMPORTS: "codex\nwindsurf" })).toEqual(["from_windsurf", "from_codex"]);
  });

  test("[] in mcpx's own config, or none in a variable, imports nothing", async () => {
    writeConfig(sb, "other/.mcpx.json", { config: { imports: [] } });
    expect(await names({}, join(sb.dir, "other"))).toEqual([]);
    expect(await names({ MCPX_CONFIG_IMPORTS: "none" })).toEqual([]);
  });

  test("an unknown kind is an error naming the accepted kinds", async () => {
    const r = await mcpx(sb, ["ls", "--config-imports", "cursr"], { cwd: proj });
    expectExit(r, 2);
    expect(r.stderr).toContain('unknown import kind "cursr": use one of claude-code, cursor, vscode, windsurf, opencode, codex, claude-desktop');
  });
});

describe("name clashes", () => {
  test("mcpx's own config wins, then the earlier kind (claude-code before cursor), then the nearer file of a kind", async () => {
    const sb = sandbox();
    const proj = join(sb.dir, "proj");
    writeConfig(sb, "proj/.mcpx.json", { mcpServers: { same: fakeServer({ WHO: "mcpx" }) } });
    writeConfig(sb, "proj/.mcp.json", { mcpServers: { same: fakeServer({ WHO: "claude-code" }), both: fakeServer({ WHO: "claude-code" }) } });
    writeConfig(sb, "proj/.cursor/mcp.json", { mcpServers: { both: fakeServer({ WHO: "cursor" }), near: fakeServer({ WHO: "project cursor" }) } });
    writeConfig(sb, "home/.cursor/mcp.json", { mcpServers: { near: fakeServer({ WHO: "user cursor" }) } });
    const r = await mcpx(sb, ["exec", "for (const s of ['same', 'both', 'near']) console.log(await call(s, 'env', { name: 'WHO' }))"], { cwd: proj });
    expectExit(r, 0);
    expect(r.stdout).toBe("mcpx\nclaude-code\nproject cursor\n");
  });
});

describe("mcpx config import", () => {
  test("without KIND it lists what each kind would bring, broken and switched-off entries included", async () => {
    const { sb, proj } = everyKind();
    writeConfig(sb, "proj/.vscode/mcp.json", { servers: { asks: { command: "x", env: { T: "${input:token}" } } } });
    writeConfig(sb, "home/.codeium/windsurf/mcp_config.json", { mcpServers: { off: { command: "x", disabled: true } } });
    const r = await mcpx(sb, ["config", "import", "--json"], { cwd: proj, env: { MCPX_CONFIG_IMPORTS: "cursor" } });
    expectExit(r, 0);
    const kinds = JSON.parse(r.stdout) as Array<{
      kind: string;
      inConfigImports: boolean;
      servers: Array<{ name: string }>;
      broken: Array<{ name: string; error: string }>;
      disabled: string[];
    }>;
    expect(kinds.map((k) => k.kind)).toEqual(["claude-code", "cursor", "vscode", "windsurf", "opencode", "codex", "claude-desktop"]);
    expect(kinds.find((k) => k.kind === "cursor")!.inConfigImports).toBe(true);
    expect(kinds.find((k) => k.kind === "codex")!.inConfigImports).toBe(false);
    expect(kinds.find((k) => k.kind === "vscode")!.broken[0]!.error).toContain("uses ${input:token}, which VS Code prompts for and mcpx cannot");
    expect(kinds.find((k) => k.kind === "windsurf")!.disabled[0]).toStartWith("off (");
  });

  test("KIND writes its servers into ./.mcpx.json, keeping a name already there and the file's comments", async () => {
    const { sb, proj } = everyKind();
    sb.write("proj/.mcpx.json", '// mine\n{\n  "mcpServers": {\n    "from_cursor": {"command": "mine"}\n  }\n}\n');
    const r = await mcpx(sb, ["config", "import", "cursor"], { cwd: proj });
    expectExit(r, 0);
    expect(r.stdout).toContain("added from_cursor_user (from ");
    expect(r.stdout).toContain("kept from_cursor (from ");
    const text = readFileSync(join(proj, ".mcpx.json"), "utf8");
    expect(text).toStartWith("// mine\n");
    expect(text).toContain('"command": "mine"');
    // not trusted by being written (what it holds came from another tool's file, maybe a repository's): the user trusts it
    expect(r.stdout).toContain(`review it, then run \`mcpx trust ${join(proj, ".mcpx.json")}\``);
    expectExit(await mcpx(sb, ["trust", ".mcpx.json"], { cwd: proj }), 0);
    // the written file is mcpx's own now: it loads strictly and the server works from it
    const ls = await mcpx(sb, ["ls", "from_cursor_user", "--json"], { cwd: proj, env: { MCPX_CONFIG_IMPORTS: "none" } });
    expectExit(ls, 0);
    expect((JSON.parse(ls.stdout) as LsRow[])[0]).toMatchObject({ origin: join(proj, ".mcpx.json"), count: 13 });
  });

  test("KIND creates .mcpx.json when there is none; an unknown KIND is a usage error naming the kinds", async () => {
    const { sb, proj } = everyKind();
    const r = await mcpx(sb, ["config", "import", "codex"], { cwd: proj });
    expectExit(r, 0);
    expect(JSON.parse(readFileSync(join(proj, ".mcpx.json"), "utf8"))).toEqual({
      mcpServers: { from_codex: { command: BUN, args: [FAKE_SERVER], env: { A: "1" } } },
    });
    const bad = await mcpx(sb, ["config", "import", "codx"], { cwd: proj });
    expectExit(bad, 2);
    expect(bad.stderr).toContain('unknown import kind "codx" (did you mean codex?): use one of claude-code, cursor,');
  });
});
