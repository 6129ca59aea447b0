// Which hooks fire where: point/phase equality, event-kind prefixes for observe, and `when` globs
// where a filter on a value the context lacks never matches. Broken on purpose once (skipping a
// filter whose value is absent): "a filter on a value the context lacks does not match" went red;
// a regression would fire "only for server X" hooks at points with no server at all.

import { describe, expect, test } from "bun:test";
import type { Hook } from "../../lib/hooks/hook.ts";
import { hookMatches, matchesKind, type MatchContext } from "../../lib/hooks/match.ts";
import type { Phase } from "../../lib/hooks/points.ts";

type H = Pick<Hook, "on" | "phase" | "when">;

describe("matchesKind", () => {
  const table: Array<{ name: string; prefix: string; kind: string; match: boolean }> = [
    { name: '"call" matches call.finished', prefix: "call", kind: "call.finished", match: true },
    { name: '"call" matches call itself', prefix: "call", kind: "call", match: true },
    { name: '"*" matches every kind', prefix: "*", kind: "tools.changed", match: true },
    { name: "a full kind matches itself", prefix: "hook.failed", kind: "hook.failed", match: true },
    { name: "a prefix matches only on a dot boundary", prefix: "call", kind: "callback.done", match: false },
    { name: "a partial segment does not match", prefix: "call.fin", kind: "call.finished", match: false },
    { name: "a longer prefix does not match a shorter kind", prefix: "call.finished.x", kind: "call.finished", match: false },
    { name: "another kind does not match", prefix: "server", kind: "script.started", match: false },
  ];
  for (const row of table) test(row.name, () => expect(matchesKind(row.prefix, row.kind)).toBe(row.match));
});

describe("hookMatches", () => {
  const table: Array<{ name: string; hook: H; at: [string, Phase]; ctx?: MatchContext; match: boolean }> = [
    { name: "a hook matches its point and phase", hook: { on: "call", phase: "before", when: {} }, at: ["call", "before"], match: true },
    { name: "another phase does not match", hook: { on: "call", phase: "before", when: {} }, at: ["call", "onSuccess"], match: false },
    { name: "another point does not match", hook: { on: "call", phase: "before", when: {} }, at: ["script", "before"], match: false },
    {
      name: "a point hook is not a prefix: call does not match call.x",
      hook: { on: "call", phase: "before", when: {} },
      at: ["server.start", "before"],
      match: false,
    },
    { name: "an observe hook matches by kind prefix", hook: { on: "call", phase: "observe", when: {} }, at: ["call.finished", "observe"], match: true },
    { name: 'an observe hook on "*" matches any kind', hook: { on: "*", phase: "observe", when: {} }, at: ["server.stopped", "observe"], match: true },
    { name: "an observe hook never fires at a point phase", hook: { on: "call", phase: "observe", when: {} }, at: ["call", "before"], match: false },
    { name: "a point hook never fires from the bus", hook: { on: "call", phase: "before", when: {} }, at: ["call", "observe"], match: false },
    {
      name: "a tool glob matches",
      hook: { on: "call", phase: "before", when: { tool: "delete_*" } },
      at: ["call", "before"],
      ctx: { server: "fs", tool: "delete_file" },
      match: true,
    },
    {
      name: "a tool glob that does not match",
      hook: { on: "call", phase: "before", when: { tool: "delete_*" } },
      at: ["call", "before"],
      ctx: { tool: "read_file" },
      match: false,
    },
    {
      name: "a server glob with alternatives matches",
      hook: { on: "call", phase: "before", when: { server: "{fs,git}" } },
      at: ["call", "before"],
      ctx: { server: "git" },
      match: true,
    },
    {
      name: "every filter must match",
      hook: { on: "call", phase: "before", when: { server: "fs", tool: "delete_*" } },
      at: ["call", "before"],
      ctx: { server: "git", tool: "delete_file" },
      match: false,
    },
    {
      name: "a filter on a value the context lacks does not match",
      hook: { on: "call", phase: "before", when: { server: "*" } },
      at: ["call", "before"],
      ctx: {},
      match: false,
    },
    {
      name: "session compares exactly, not as a glob",
      hook: { on: "script", phase: "before", when: { session: "s*" } },
      at: ["script", "before"],
      ctx: { session: "s1" },
      match: false,
    },
    {
      name: "session matches its own id",
      hook: { on: "script", phase: "before", when: { session: "s1" } },
      at: ["script", "before"],
      ctx: { session: "s1" },
      match: true,
    },
    {
      name: "a uri glob matches across path segments with **",
      hook: { on: "resources", phase: "observe", when: { uri: "file:///w/**" } },
      at: ["resources.updated", "observe"],
      ctx: { uri: "file:///w/a/b.txt" },
      match: true,
    },
    {
      name: "glob matching is case-sensitive",
      hook: { on: "call", phase: "before", when: { tool: "Delete_*" } },
      at: ["call", "before"],
      ctx: { tool: "delete_x" },
      match: false,
    },
    {
      name: "a tool filter written as the identifier matches the MCP name",
      hook: { on: "call", phase: "before", when: { tool: "get_sum" } },
      at: ["call", "before"],
      ctx: { tool: "get-sum" },
      match: true,
    },
    {
      name: "a tool glob written with identifiers matches the MCP name",
      hook: { on: "call", phase: "before", when: { tool: "delete_*" } },
      at: ["call", "before"],
      ctx: { tool: "delete-file" },
      match: true,
    },
    {
      name: "a tool filter written as the MCP name still matches it",
      hook: { on: "call", phase: "before", when: { tool: "get-sum" } },
      at: ["call", "before"],
      ctx: { tool: "get-sum" },
      match: true,
    },
    {
      // scripts reach server my-fs as my_fs: a guard written as the script spells it must fire
      name: "a server filter written as the identifier matches the configured name",
      hook: { on: "call", phase: "before", when: { server: "my_fs" } },
      at: ["call", "before"],
      ctx: { server: "my-fs" },
      match: true,
    },
    {
      name: "no when filters match any context",
      hook: { on: "call", phase: "suffix", when: {} },
      at: ["call", "suffix"],
      ctx: { server: "x", tool: "y" },
      match: true,
    },
  ];
  for (const row of table) test(row.name, () => expect(hookMatches(row.hook, ...row.at, row.ctx ?? {})).toBe(row.match));
});
