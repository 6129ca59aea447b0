// Generated docs are derived from their registries and checked in; these tests fail when a registry
// changed and the docs were not regenerated.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { GENERATED_BEGIN, GENERATED_END, settingsMarkdown, withGeneratedSettings } from "../../lib/settings/docs.ts";
import { SETTINGS } from "../../lib/settings/registry.ts";
import { envName, flagSpellings } from "../../lib/settings/setting-names.ts";
import { SETTINGS_DOC } from "../gen-docs.ts";

describe("docs/settings.md", () => {
  test("the generated settings table is up to date with the registry", () => {
    const doc = readFileSync(SETTINGS_DOC, "utf8");
    const fresh = withGeneratedSettings(doc);
    if (fresh !== doc) throw new Error("docs/settings.md is stale: the settings registry changed. Run `bun run test/gen-docs.ts` and commit the result.");
    expect(fresh).toBe(doc);
  });

  test("the markers appear exactly once each", () => {
    const doc = readFileSync(SETTINGS_DOC, "utf8");
    expect(doc.split(GENERATED_BEGIN)).toHaveLength(2);
    expect(doc.split(GENERATED_END)).toHaveLength(2);
  });

  test("the hand-written part explains precedence, the null-splice rule and @FILE", () => {
    const doc = readFileSync(SETTINGS_DOC, "utf8");
    const prose = doc.slice(0, doc.indexOf(GENERATED_BEGIN));
    expect(prose).toContain('["a", null, "b"]');
    expect(prose).toContain('["a", "x", "y", "b"]');
    expect(prose).toMatch(/flags/i);
    expect(prose).toContain("@FILE");
  });
});

describe("settingsMarkdown", () => {
  const table = settingsMarkdown();
  const lines = table.trimEnd().split("\n");

  test("has a header, a rule and one row per setting, in registry order", () => {
    expect(lines).toHaveLength(2 + SETTINGS.length);
    expect(lines[0]).toBe("| Setting | Kind | Default | Variable | Flags | Accepts | Description |");
    for (const [i, line] of lines.slice(2).entries()) expect(line.startsWith(`| \`${SETTINGS[i]!.path}\` |`)).toBe(true);
  });

  test("every row has seven cells (no stray pipe splits one)", () => {
    for (const line of lines) expect(line.split(/(?<!\\)\|/).length - 2).toBe(7);
  });

  test("each row carries the setting's variable, every flag spelling and, for an enum, every value", () => {
    SETTINGS.forEach((s, i) => {
      const row = lines[2 + i]!;
      expect(row).toContain(`\`${envName(s.path)}\``);
      for (const f of flagSpellings(s)) expect(row).toContain(`\`--${f}\``);
      for (const v of s.values ?? []) expect(row).toContain(`\`${v}\``);
      expect(row).toContain(`\`${JSON.stringify(s.default)}\``);
    });
  });

  test("a setting limited to some commands names them in its flags cell", () => {
    const row = lines.find((l) => l.startsWith("| `script.before` |"))!;
    expect(row).toContain("(run, exec, serve, daemon)");
    const everywhere = lines.find((l) => l.startsWith("| `logging.format` |"))!;
    expect(everywhere).not.toContain("(run");
  });

  test("withGeneratedSettings refuses a document without the markers, saying which lines it needs", () => {
    expect(() => withGeneratedSettings("# Settings\n")).toThrow(GENERATED_BEGIN);
    expect(() => withGeneratedSettings(`${GENERATED_END}\n${GENERATED_BEGIN}\n`)).toThrow("in that order");
  });

  test("withGeneratedSettings keeps everything outside the markers and is idempotent", () => {
    const doc = `intro\n${GENERATED_BEGIN}\nold table\n${GENERATED_END}\noutro\n`;
    const once = withGeneratedSettings(doc);
    expect(once).toBe(`intro\n${GENERATED_BEGIN}\n${table}${GENERATED_END}\noutro\n`);
    expect(withGeneratedSettings(once)).toBe(once);
  });
});
