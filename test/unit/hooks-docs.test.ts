// docs/hooks.md's generated part comes from the points table, the hook-tool bindings and the
// MCPX_HOOK_* table; this fails when one of them changed and the doc was not regenerated.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { HOOK_ENV } from "../../lib/hooks/hook-env.ts";
import { HOOKS_BEGIN, HOOKS_END, hooksMarkdown, withGeneratedHooks } from "../../lib/hooks/docs.ts";
import { HOOK_TOOL_BINDINGS } from "../../lib/hooks/mcp-hook-tools.ts";
import { phasesOf, phaseSpec, POINT_NAMES } from "../../lib/hooks/points.ts";
import { HOOKS_DOC } from "../gen-docs.ts";

describe("docs/hooks.md", () => {
  const doc = readFileSync(HOOKS_DOC, "utf8");

  test("the generated part is up to date with the points table", () => {
    if (withGeneratedHooks(doc) !== doc) {
      throw new Error(
        "docs/hooks.md is stale: the points table, the hook-tool bindings or the MCPX_HOOK_* " +
          "table changed. Run `bun run test/gen-docs.ts` and commit the result.",
      );
    }
  });

  test("the markers appear exactly once each", () => {
    expect(doc.split(HOOKS_BEGIN)).toHaveLength(2);
    expect(doc.split(HOOKS_END)).toHaveLength(2);
  });

  test("the hand-written part covers the hook object, the dial, failure, MCP-driven hooks and Claude Code", () => {
    const prose = doc.slice(0, doc.indexOf(HOOKS_BEGIN));
    for (const heading of ["## The hook object", "## The dial", "## Failure", "## MCP-driven hooks", "## Claude Code compatibility"])
      expect(prose).toContain(heading);
    for (const key of ["`on`", "`phase`", "`run`", "`module`", "`plugin`", "`prompt`", "`when`", "`effect`", "`failure`", "`timeout`", "`name`", "`compat`"])
      expect(prose).toContain(key);
    expect(prose).toContain("MCP_HOOK_SERVERS");
    expect(prose).toContain('["sh", "-c", "…"]');
  });
});

describe("hooksMarkdown", () => {
  const md = hooksMarkdown();

  test("lists every point with every phase it has and what that phase receives", () => {
    for (const point of POINT_NAMES) {
      expect(md).toContain(`#### \`${point}\``);
      for (const phase of phasesOf(point)) expect(md).toContain(phaseSpec(point, phase)!.receives.replace(/\|/g, "\\|"));
    }
  });

  test("lists every hook-tool binding and every MCPX_HOOK_* variable", () => {
    for (const b of HOOK_TOOL_BINDINGS) expect(md).toContain(`| \`${b.tool}\` | \`${b.point}\` | \`${b.phase}\` |`);
    for (const v of HOOK_ENV) expect(md).toContain(`| \`${v.name}\` |`);
  });

  test("withGeneratedHooks refuses a document without the markers, saying which lines it needs", () => {
    expect(() => withGeneratedHooks("# Hooks\n")).toThrow(HOOKS_BEGIN);
    expect(() => withGeneratedHooks(`${HOOKS_END}\n${HOOKS_BEGIN}\n`)).toThrow("in that order");
  });

  test("withGeneratedHooks keeps everything outside the markers and is idempotent", () => {
    const doc = `intro\n${HOOKS_BEGIN}\nold\n${HOOKS_END}\noutro\n`;
    const once = withGeneratedHooks(doc);
    expect(once).toBe(`intro\n${HOOKS_BEGIN}\n${md}${HOOKS_END}\noutro\n`);
    expect(withGeneratedHooks(once)).toBe(once);
  });
});
