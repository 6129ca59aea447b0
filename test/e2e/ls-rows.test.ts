// `mcpx ls SERVER` shows each tool as its server lists it (the name Claude Code and the server use,
// `get-sum`), how a script calls it with a short signature of its arguments, and its description:
// three tab-separated columns. Every row of `mcpx ls` and `mcpx ls SERVER` stays one line with its
// columns, whatever a server's error text holds: newlines and tabs are escaped (\n, \t, \\).

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
const failing = { command: "sh", args: ["-c", 'printf "line one\\tcol\\nline two\\n" >&2; exit 3'] };
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer(), failing } });

const rows = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => l.split("\t"));

describe.concurrent("mcpx ls rows", () => {
  test("mcpx ls fake: the listed name, a script's call with its arguments' types, the description", async () => {
    const r = await mcpx(sb, ["ls", "fake"]);
    expectExit(r, 0);
    const byName = new Map(rows(r.stdout).map(([name, ...rest]) => [name, rest]));
    expect(byName.get("get-sum")).toEqual(["fake.get_sum({ values: number[] })", "Sums a list of numbers."]);
    expect(byName.get("echo")?.[0]).toBe("fake.echo({ message: string })");
    expect(byName.get("optional_args")?.[0]).toBe("fake.optional_args({ greeting?: string })");
    expect(byName.get("json_text")?.[0]).toBe("fake.json_text()");
    expect(byName.get("nested")?.[0]).toBe('fake.nested({ mode: "fast" | "slow", target: string | object, items: object[] })');
    expect(rows(r.stdout).every((cols) => cols.length === 3)).toBe(true);
  });

  test("mcpx ls: a server's multi-line error is one row of three columns, its newlines and tabs escaped", async () => {
    const r = await mcpx(sb, ["ls"]);
    expectExit(r, 1);
    const lines = rows(r.stdout);
    expect(lines.map((cols) => cols.length)).toEqual([3, 3]);
    const failed = lines.find(([name]) => name === "failing")!;
    expect(failed[1]).toContain("line one\\tcol\\n  line two");
  });
});

test("no server process is left", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
