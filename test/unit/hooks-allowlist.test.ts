// MCP_HOOK_SERVERS: off unless the operator names servers; "*" alone means all, and only alone.
// Broken on purpose once (treating a "*" item anywhere in the list as all): the three "literal"
// rows below went red, so widening to every server cannot slip in through a list.

import { describe, expect, test } from "bun:test";
import { isAllowed, parseHookServers, type HookServers } from "../../lib/hooks/allowlist.ts";

describe("parseHookServers", () => {
  const table: Array<{ name: string; value: string | undefined; list: HookServers }> = [
    { name: "unset allows no server", value: undefined, list: { all: false, names: [] } },
    { name: "empty allows no server", value: "", list: { all: false, names: [] } },
    { name: "blank allows no server", value: "  \t ", list: { all: false, names: [] } },
    { name: "exactly * allows all", value: "*", list: { all: true } },
    { name: "* with surrounding spaces allows all", value: "  * ", list: { all: true } },
    { name: "one name allows that server", value: "tests", list: { all: false, names: ["tests"] } },
    { name: "a comma list is trimmed", value: " tests , lint ", list: { all: false, names: ["tests", "lint"] } },
    { name: "empty items are dropped", value: "tests,,lint,", list: { all: false, names: ["tests", "lint"] } },
    { name: "only commas allow no server", value: " , ,", list: { all: false, names: [] } },
    { name: "*,foo is literal: a server named * and foo, not all", value: "*,foo", list: { all: false, names: ["*", "foo"] } },
    { name: "a trailing comma after * makes it literal too", value: "*,", list: { all: false, names: ["*"] } },
    { name: "** is a literal name", value: "**", list: { all: false, names: ["**"] } },
    { name: "a repeated name is listed once", value: "a,a,b", list: { all: false, names: ["a", "b"] } },
  ];
  for (const row of table) test(row.name, () => expect(parseHookServers(row.value)).toEqual(row.list));
});

describe("isAllowed", () => {
  const table: Array<{ name: string; value: string | undefined; server: string; allowed: boolean }> = [
    { name: "nothing is allowed when unset", value: undefined, server: "tests", allowed: false },
    { name: "every server is allowed under *", value: "*", server: "anything", allowed: true },
    { name: "a listed server is allowed", value: "tests,lint", server: "lint", allowed: true },
    { name: "an unlisted server is not", value: "tests,lint", server: "docs", allowed: false },
    { name: "names are exact: no prefix match", value: "test", server: "tests", allowed: false },
    { name: "names are case-sensitive", value: "Tests", server: "tests", allowed: false },
    { name: "a literal * in a list does not allow others", value: "*,foo", server: "bar", allowed: false },
    { name: "a literal * in a list allows a server named *", value: "*,foo", server: "*", allowed: true },
  ];
  for (const row of table) test(row.name, () => expect(isAllowed(parseHookServers(row.value), row.server)).toBe(row.allowed));
});
