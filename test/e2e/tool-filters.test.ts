// A tool the user turned off in another tool's config stays off in mcpx: Codex's enabled_tools and
// disabled_tools (~/.codex/config.toml), Windsurf's disabledTools, and mcpx's own enabledTools and
// disabledTools. The tool is not listed (mcpx ls), not typed (mcpx types) and not callable: a call
// gets the unknown-tool error, which names the filter and the file that set it.

import { describe, expect, test } from "bun:test";
import { BUN, FAKE_SERVER, fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
const codexFile = sb.write(
  "home/.codex/config.toml",
  `[mcp_servers.codexed]\ncommand = ${JSON.stringify(BUN)}\nargs = [${JSON.stringify(FAKE_SERVER)}]\n` +
    `enabled_tools = ["echo", "delete_item", "get-sum"]\ndisabled_tools = ["delete_item"]\n`,
);
writeConfig(sb, "home/.codeium/windsurf/mcp_config.json", { mcpServers: { surfed: { ...fakeServer(), disabledTools: ["delete_item"] } } });
const own = writeConfig(sb, ".mcpx.json", { mcpServers: { mine: { ...fakeServer(), disabledTools: ["delete_item"] } } });
const env = { MCPX_CONFIG_IMPORTS: "codex\nwindsurf" };
const listed = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => l.split("\t")[0]);

describe.concurrent("tool filters are honoured", () => {
  test("Codex: only enabled_tools minus disabled_tools are listed, typed and callable", async () => {
    const [ls, types, ok] = await Promise.all([
      mcpx(sb, ["ls", "codexed"], { env }),
      mcpx(sb, ["types", "codexed"], { env }),
      mcpx(sb, ["call", "codexed.echo", "message=hi"], { env }),
    ]);
    expectExit(ls, 0);
    expect(listed(ls.stdout)).toEqual(["echo", "get-sum"]);
    expectExit(types, 0);
    expect(types.stdout).toContain("echo");
    expect(types.stdout).not.toContain("delete_item");
    expect(types.stdout).not.toContain("json_text");
    expectExit(ok, 0);
    expect(ok.stdout).toBe("hi\n");
  });

  test("Codex: a call of a tool disabled_tools turns off is the unknown-tool error naming disabled_tools and the file", async () => {
    const [off, notEnabled] = await Promise.all([
      mcpx(sb, ["call", "codexed.delete_item", "id=1"], { env }),
      mcpx(sb, ["exec", "await codexed.json_text()"], { env }),
    ]);
    expectExit(off, 1);
    expect(off.stderr).toContain(`unknown tool "delete_item" on server "codexed": disabled_tools in ${codexFile} turns it off`);
    expectExit(notEnabled, 1);
    expect(notEnabled.stderr).toContain(`unknown tool "json_text" on server "codexed": it is not in enabled_tools in ${codexFile}`);
  });

  test("Windsurf's disabledTools and mcpx's own disabledTools turn the tool off the same way", async () => {
    const [surfed, mine] = await Promise.all([
      mcpx(sb, ["call", "surfed.delete_item", "id=1"], { env }),
      mcpx(sb, ["call", "mine.delete_item", "id=1"], { env }),
    ]);
    expectExit(surfed, 1);
    expect(surfed.stderr).toContain('unknown tool "delete_item" on server "surfed": disabledTools in');
    expectExit(mine, 1);
    expect(mine.stderr).toContain(`unknown tool "delete_item" on server "mine": disabledTools in ${own} turns it off`);
  });

  test("a filter that is not a list of strings breaks the entry, naming the key", async () => {
    const bad = sandbox();
    writeConfig(bad, ".mcpx.json", { mcpServers: { mine: { ...fakeServer(), enabledTools: "echo" } } });
    const r = await mcpx(bad, ["call", "mine.echo", "message=hi"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("enabledTools");
    expect(r.stderr).toContain("must be an array of tool names");
  });
});

test("no server process is left", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
