// A config with a bad hook does not load: exit 2 before anything runs, with an error that names the
// file, the hook's index and the fix. Each bad hook sits at index 1, after a good one, so the index
// in the message is proved to be the bad hook's own. The script would write a file and call the fake
// server if it ran; neither may happen.

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { FAKE_SERVER } from "./harness.ts";
import { expectExit, recordedStarts, recordPath, say } from "./hooks-support.ts";
import { mcpx, writeConfig } from "./support.ts";
import { sandbox } from "./harness.ts";

const sb = sandbox();
const GOOD = { on: "call", phase: "before", run: say({}) };

const CASES: Array<{ title: string; hook: Record<string, unknown>; expect: string[] }> = [
  {
    title: "a shell string in run is refused, with the argv array and the explicit shell to use instead",
    hook: { on: "call", phase: "before", run: "echo hi there" },
    expect: ["run", '["echo","hi","there"]', '["sh","-c","echo hi there"]'],
  },
  {
    title: 'phase "after" is refused, with the hint to use onSuccess/onError, or suffix for both',
    hook: { on: "call", phase: "after", run: say({}) },
    expect: ["phase", '"after"', "onSuccess", "onError", "suffix"],
  },
  {
    title: 'phase "prefix" is refused: prefix is inline source, the script.prefix setting',
    hook: { on: "script", phase: "prefix", run: say({}) },
    expect: ["phase", "prefix", "--prefix"],
  },
  {
    title: "a source key is refused: inline source belongs in the script.<phase> settings",
    hook: { on: "script", phase: "before", source: 'console.log("hi")' },
    expect: ["source", "script.before", "--before"],
  },
  {
    title: "a phase the point does not have is refused, naming the phases it has",
    hook: { on: "server.start", phase: "suffix", run: say({}) },
    expect: ["phase", "server.start", "before, onSuccess, onError"],
  },
  {
    title: 'failure "closed" below ask is refused: failing closed is a refusal',
    hook: { on: "call", phase: "before", run: say({}), effect: "advise", failure: "closed" },
    expect: ["failure", "ask"],
  },
];

describe.concurrent("a bad hook is refused when the config loads", () => {
  for (const c of CASES) {
    test(`${c.title} (exit 2, naming the file and index, before anything runs)`, async () => {
      const slug = c.title.replace(/[^a-z]+/gi, "-").slice(0, 40);
      const record = recordPath(sb, slug);
      const ran = join(sb.dir, `${slug}-ran.txt`);
      const config = writeConfig(sb, `${slug}.json`, {
        mcpServers: { fake: { command: "bun", args: [FAKE_SERVER], env: { FAKE_MCP_RECORD: record } } },
        hooks: [GOOD, c.hook],
      });
      const r = await mcpx(sb, [
        "exec",
        "--config",
        config,
        `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(ran)}, "ran"); console.log(await fake.echo({ message: "ran" }))`,
      ]);
      expectExit(r, 2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(config);
      expect(r.stderr).toContain("hooks[1]");
      for (const piece of c.expect) expect(r.stderr).toContain(piece);
      expect(existsSync(ran)).toBe(false);
      expect(recordedStarts(record)).toEqual([]);
    });
  }

  test("a bad hook in MCPX_HOOKS is refused naming the variable and the index", async () => {
    const r = await mcpx(sb, ["exec", 'console.log("ran")'], { env: { MCPX_HOOKS: JSON.stringify([GOOD, { on: "call", phase: "after", run: say({}) }]) } });
    expectExit(r, 2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("MCPX_HOOKS");
    expect(r.stderr).toContain("[1]");
    expect(r.stderr).toContain("onSuccess");
  });

  test("mcpx call refuses a config with a bad hook too, before calling anything", async () => {
    const record = recordPath(sb, "call");
    const config = writeConfig(sb, "call-bad.json", {
      mcpServers: { fake: { command: "bun", args: [FAKE_SERVER], env: { FAKE_MCP_RECORD: record } } },
      hooks: [GOOD, { on: "call", phase: "before", run: "rm -rf /tmp/nothing" }],
    });
    const r = await mcpx(sb, ["call", "--config", config, "fake.echo", '{"message":"hi"}']);
    expectExit(r, 2);
    expect(r.stderr).toContain(config);
    expect(r.stderr).toContain("hooks[1]");
    expect(recordedStarts(record)).toEqual([]);
  });
});
