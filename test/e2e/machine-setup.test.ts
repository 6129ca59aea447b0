// What the machine gives mcpx, when it gives too little: a cache or temporary directory that cannot
// be written, a config nested past any sense. Each is one line naming the path and the fix (exit 2),
// never minified source or a stack.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

const sb = sandbox();
sb.write(".mcpx.json", "{}\n");
// a file where mcpx wants a directory: root may write anywhere, but nobody can mkdir under a file
const FILE = sb.write("a-file", "");

/** one line on stderr, and nothing of mcpx's source in it */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(stderr).not.toContain("__toESM");
  return lines[0]!;
}

describe.concurrent("a machine that gives mcpx too little is told what to change", () => {
  test("an XDG_CACHE_HOME that cannot be written is one line naming the path and the variable, exit 2", async () => {
    const r = await mcpx(sb, ["exec", "console.log(1)"], { env: { XDG_CACHE_HOME: join(FILE, "cache") } });
    expectExit(r, 2);
    const line = oneLine(r.stderr);
    expect(line).toStartWith(`mcpx exec: cannot write ${join(FILE, "cache", "mcpx")}`);
    expect(line).toContain(`(ENOTDIR on mkdir: a file stands where a directory should be), in its cache directory (XDG_CACHE_HOME=${join(FILE, "cache")})`);
    expect(line).toEndWith("set XDG_CACHE_HOME to a writable directory with space, or unset it");
  });

  test("a HOME that cannot hold mcpx's files and a temporary directory that cannot either is one line with the fix, exit 2", async () => {
    // /proc/1 takes no new directories, for root neither; TMPDIR is the file
    const r = await mcpx(sb, ["exec", "console.log(1)"], { env: { HOME: "/proc/1", XDG_CACHE_HOME: "", XDG_STATE_HOME: "", TMPDIR: FILE } });
    expectExit(r, 2);
    const line = oneLine(r.stderr);
    expect(line).toStartWith(`mcpx exec: cannot write ${join(FILE, "mcpx-home-")}`);
    expect(line).toContain(`in its directory in ${FILE}, used because HOME cannot hold mcpx's files: set HOME, or XDG_CACHE_HOME and XDG_STATE_HOME`);
  });

  test("a config nested 100,000 levels deep is a config error naming the file, line and column, exit 2", async () => {
    const dir = join(sb.dir, "deep");
    const file = sb.write("deep/.mcpx.json", '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000));
    const r = await mcpx(sb, ["ls"], { cwd: dir });
    expectExit(r, 2);
    expect(oneLine(r.stderr)).toStartWith(`mcpx ls: ${file}:1:1281: nested more than 256 levels deep`);
  });
});
