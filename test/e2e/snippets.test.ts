// How an exec snippet gives a value and reports its mistakes, on every runtime: `return` sets the
// result (a snippet without imports or exports is a function body), a syntax error names "snippet"
// (or the file) with line:column and still runs onError and suffix, and `mcpx exec -` reads the
// snippet from stdin.

import { describe, expect, test } from "bun:test";
import { sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {});
const RUNTIMES = ["bun", "deno", "node"];

describe.concurrent("a snippet's value", () => {
  for (const runtime of RUNTIMES) {
    test(`on ${runtime}, return sets the result, after an await`, async () => {
      const r = await mcpx(sb, ["exec", "--runtime", runtime, "--json", "const a = await Promise.resolve(2);\nreturn { doubled: a * 2 }"]);
      expectExit(r, 0);
      expect(JSON.parse(r.stdout).result).toEqual({ doubled: 4 });
    });

    test(`on ${runtime}, a syntax error names the snippet's line and column, and onError and suffix still run`, async () => {
      const r = await mcpx(sb, [
        "exec",
        "--runtime",
        runtime,
        "--on-error",
        'console.log("onError")',
        "--suffix",
        'console.log("suffix")',
        "const a = 1;\nconst x = ;",
      ]);
      expectExit(r, 1);
      expect(r.stdout).toBe("onError\nsuffix\n");
      expect(r.stderr).toContain("snippet line 2:11");
      expect(r.stderr).not.toContain("snippets/snippet-");
    });
  }

  test("a bare expression returns nothing: the result is null, and the docs say to return it", async () => {
    const r = await mcpx(sb, ["exec", "--json", "1 + 1"]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).result).toBeNull();
  });

  test("a snippet with an export is a module: its default export is the value", async () => {
    const r = await mcpx(sb, ["exec", 'import { join } from "node:path";\nexport default () => join("a", "b")']);
    expectExit(r, 0);
    expect(r.stdout).toBe("a/b\n");
  });

  test("a file script's syntax error names the file with line:column", async () => {
    const file = sb.write("broken.ts", "const a = 1;\nconst b = {\n");
    const r = await mcpx(sb, ["run", file]);
    expectExit(r, 1);
    expect(r.stderr).toContain(`${file}:2:12`);
  });
});

describe("mcpx exec -", () => {
  test("reads the snippet from stdin, and the script then reads an empty stdin", async () => {
    const r = await mcpx(sb, ["exec", "-"], {
      stdin: 'const rest = await new Response(Bun.stdin.stream()).text();\nconsole.log("from stdin", JSON.stringify(rest))',
    });
    expectExit(r, 0);
    expect(r.stdout).toBe('from stdin ""\n');
  });
});
