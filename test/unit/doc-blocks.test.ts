// The doc test's extractor: which blocks and command lines it finds, and which blocks it refuses to
// guess about (an unlabeled block with a command in it must fail the doc test, not be skipped).

import { describe, expect, test } from "bun:test";
import { blockProblem, examplePath, fencedBlocks, program, shellCommands, stripComment } from "../e2e/doc-blocks.ts";

const MD = [
  "# Title",
  "",
  "```sh",
  "mcpx ls            # servers and tool counts",
  "mcpx exec 'console.log(\"# not a comment\")'",
  "",
  "mcpx call a.b \\",
  "  '{\"x\": 1}'",
  "```",
  "",
  "<!-- doc-test: network -->",
  "```jsonc",
  "// .mcpx.json (found walking up), or ~/.config/mcpx/config.json",
  '{ "mcpServers": {} }',
  "```",
  "",
  "````",
  "```sh",
  "inside a longer fence",
  "````",
  "```console",
  "$ mcpx ls",
  "fake  3 tools",
  "```",
].join("\n");

describe("fencedBlocks", () => {
  const blocks = fencedBlocks("X.md", MD);

  test("finds every block with its fence line, language and body", () => {
    expect(blocks.map((b) => [b.line, b.lang])).toEqual([
      [3, "sh"],
      [12, "jsonc"],
      [17, ""],
      [21, "console"],
    ]);
    expect(blocks[2]!.body).toBe("```sh\ninside a longer fence");
  });

  test("a doc-test comment right above the fence is the block's marker", () => {
    expect(blocks.map((b) => b.marker)).toEqual([undefined, "network", undefined, undefined]);
  });
});

describe("shellCommands", () => {
  const [sh, , , con] = fencedBlocks("X.md", MD);

  test("every non-blank line is a command, without its trailing comment, continuations joined", () => {
    expect(shellCommands(sh!)).toEqual([
      { line: 4, text: "mcpx ls" },
      { line: 5, text: "mcpx exec 'console.log(\"# not a comment\")'" },
      { line: 7, text: "mcpx call a.b '{\"x\": 1}'" },
    ]);
  });

  test("in a console block only $ lines are commands", () => {
    expect(shellCommands(con!)).toEqual([{ line: 22, text: "mcpx ls" }]);
  });

  test("the program is the first word", () => {
    expect(program({ line: 1, text: "curl --unix-socket x http://x/" })).toBe("curl");
  });
});

describe("stripComment", () => {
  test("a # inside quotes or inside a word is not a comment", () => {
    expect(stripComment(`echo 'a # b' "c # d" e#f # gone`)).toBe(`echo 'a # b' "c # d" e#f`);
    expect(stripComment("# all comment")).toBe("");
  });
});

describe("examplePath", () => {
  test("the first path in a first-line comment, else .mcpx.json", () => {
    const [, jsonc] = fencedBlocks("X.md", MD);
    expect(examplePath(jsonc!)).toBe(".mcpx.json");
    expect(examplePath({ file: "X.md", line: 1, lang: "jsonc", body: "// plugins/guard/mcpx-plugin.json\n{}" })).toBe("plugins/guard/mcpx-plugin.json");
    expect(examplePath({ file: "X.md", line: 1, lang: "json", body: '{ "a": 1 }' })).toBe(".mcpx.json");
  });
});

describe("blockProblem", () => {
  const block = (lang: string, body: string, marker?: string) => ({ file: "X.md", line: 7, lang, body, marker });

  test("an unlabeled block holding a command is refused, naming the line to label", () => {
    expect(blockProblem(block("", "mcpx daemon   # default socket"))).toBe(
      "X.md:7: an unlabeled block holds a command (mcpx daemon   # default socket): label it ```sh so the doc test runs it",
    );
    expect(blockProblem(block("", "$ curl http://x/"))).toContain("label it ```sh");
  });

  test("an unlabeled block holding JSON is refused", () => {
    expect(blockProblem(block("", '{ "mcpServers": {} }'))).toContain("label it ```json");
  });

  test("unlabeled prose, a frame list or an error message is fine", () => {
    expect(blockProblem(block("", "start{runId}\nend{exitCode}"))).toBeUndefined();
    expect(blockProblem(block("", "invalid arguments for mcpx_exec: unknown key"))).toBeUndefined();
  });

  test("an unknown marker or language is refused, naming what is known", () => {
    expect(blockProblem(block("json", "{}", "skip"))).toBe('X.md:7: unknown doc-test marker "skip": use one of network, output, client-config, oauth');
    expect(blockProblem(block("python", "print(1)"))).toContain("the doc test knows sh, bash, console, shell, json, jsonc");
  });

  test("a shell block cannot be marked output: its commands are all run", () => {
    expect(blockProblem(block("sh", "mcpx ls", "output"))).toContain("a shell block's commands are all run");
  });
});
