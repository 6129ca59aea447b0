// "A knob nobody can find is not a feature": every entry of the real settings registry must be
// reachable from every surface that advertises it — a config file (nested and literally dotted), its
// MCPX_* variable, each of its flag spellings on each of its commands, that command's --help (the
// cittyArgs of cmd/help.ts, and the real cmd/<command>.ts that shows them), the
// generated docs and the `mcpx settings` row. The tests loop over the registry, so a new setting is
// covered the moment it is declared.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ArgsDef } from "citty";
import { COMMON_FLAGS, parseCommandArgs } from "../../lib/settings/flags.ts";
import { SETTINGS } from "../../lib/settings/registry.ts";
import type { CommandName, SettingDecl } from "../../lib/settings/setting-decl.ts";
import { envName, flagName, flagSpellings, settingsFor } from "../../lib/settings/setting-names.ts";
import { resolveSettings, type SettingsInput } from "../../lib/settings/resolve.ts";
import { settingRow } from "../../lib/settings/rows.ts";
import { cittyArgs } from "../../cmd/help.ts";
import { GENERATED_BEGIN, GENERATED_END } from "../../lib/settings/docs.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CWD = "/nonexistent-cwd";
const CONFIG = "/nonexistent-project/.mcpx.json";

/** every command file in cmd/ and every command a setting names (files that are not commands take no settings) */
const CANDIDATES = [
  ...new Set([
    ...readdirSync(join(ROOT, "cmd"))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => f.slice(0, -3)),
    ...SETTINGS.flatMap((s) => s.commands ?? []),
  ]),
] as CommandName[];

/** the commands that take a setting, as the registry's settingsFor answers (the default list is not restated here) */
function settingsCommands(s: SettingDecl): CommandName[] {
  return CANDIDATES.filter((c) => settingsFor(c).includes(s));
}

/** every command that takes at least one setting; each must have a cmd/<name>.ts whose help lists them */
const COMMANDS: CommandName[] = CANDIDATES.filter((c) => settingsFor(c).length > 0);

/** a value other than the default, in each form a surface takes it, and what it resolves to */
function sample(s: SettingDecl): { json: unknown; text: string; value: unknown } {
  switch (s.kind) {
    case "string":
      return { json: "sample text", text: "sample text", value: "sample text" };
    case "int":
      return { json: 7, text: "7", value: 7 };
    case "bool":
      return s.default === true ? { json: false, text: "false", value: false } : { json: true, text: "true", value: true };
    case "duration":
      return { json: "1500ms", text: "1500ms", value: 1500 };
    case "enum": {
      const v = s.values!.find((x) => x !== s.default)!;
      return { json: v, text: v, value: v };
    }
    case "source":
      return { json: ['log("sample")'], text: 'log("sample")', value: ['log("sample")'] };
    case "list":
      return { json: ["sample"], text: "sample", value: ["sample"] };
    case "json": {
      const hook = { on: "script", phase: "before", run: ["true"] };
      return { json: [hook], text: JSON.stringify(hook), value: [hook] };
    }
  }
}

function nested(path: string, value: unknown): Record<string, unknown> {
  return path.split(".").reduceRight<unknown>((inner, part) => ({ [part]: inner }), value) as Record<string, unknown>;
}

function resolveOnly(input: Partial<SettingsInput>) {
  return resolveSettings({ files: [], env: {}, flags: [], cwd: CWD, ...input });
}

describe("the registry itself", () => {
  test("every setting path is unique", () => {
    const paths = SETTINGS.map((s) => s.path);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
  });

  test("every setting has its own variable: MCPX_* unless a convention fixes it, and none is MCPX_CONFIG", () => {
    const names = SETTINGS.map((s) => envName(s.path));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    for (const s of SETTINGS) expect(envName(s.path)).toMatch(s.env ? /^[A-Z][A-Z0-9_]+$/ : /^MCPX_[A-Z0-9_]+$/);
    expect(names).not.toContain("MCPX_CONFIG");
    // the buzz convention's name, kept so agent hosts and mcpx read one variable
    expect(envName("hooks.mcpServers")).toBe("MCP_HOOK_SERVERS");
  });

  test("a secret setting's row shows only whether it is set, on every surface that prints rows", () => {
    for (const s of SETTINGS.filter((d) => d.secret)) {
      const r = resolveOnly({ env: { [envName(s.path)]: "s3cret-value-1234" } }).get(s.path)!;
      expect(JSON.stringify(settingRow(r))).not.toContain("s3cret-value-1234");
      expect(settingRow(r).value).toBe("(set; not shown)");
    }
    expect(
      SETTINGS.filter((d) => d.secret)
        .map((d) => d.path)
        .sort(),
    ).toEqual(["daemon.token", "model.apiKey"]);
  });

  for (const command of COMMANDS) {
    test(`every flag spelling of mcpx ${command} belongs to one setting and none shadows --config or --help`, () => {
      const owners = new Map<string, string[]>();
      for (const s of settingsFor(command)) for (const f of flagSpellings(s)) owners.set(f, [...(owners.get(f) ?? []), s.path]);
      const clashes = [...owners].filter(([, paths]) => paths.length > 1).map(([f, paths]) => `--${f}: ${paths.join(", ")}`);
      expect(clashes).toEqual([]);
      for (const common of Object.keys(COMMON_FLAGS)) expect(owners.has(common)).toBe(false);
    });
  }
});

const doc = readFileSync(join(ROOT, "docs", "settings.md"), "utf8");
const generated = doc.slice(doc.indexOf(GENERATED_BEGIN), doc.indexOf(GENERATED_END));

describe("every command a setting names", () => {
  for (const command of COMMANDS) {
    // cittyArgs is what --help shows; this proves the command really shows it (run and exec build
    // theirs in cmd/script-command.ts), so a setting cannot be accepted yet missing from --help
    test(`cmd/${command}.ts exists and its --help holds every flag cittyArgs derives for it`, async () => {
      const file = join(ROOT, "cmd", `${command}.ts`);
      expect(existsSync(file)).toBe(true);
      const mod = (await import(file)) as { default: { args?: ArgsDef } };
      const shown = Object.keys(mod.default.args ?? {});
      for (const name of Object.keys(cittyArgs(command, {}))) expect(shown).toContain(name);
    });
  }
});

for (const s of SETTINGS) {
  describe(s.path, () => {
    const v = sample(s);

    test("resolves from a config file, nested", () => {
      const r = resolveOnly({ files: [{ path: CONFIG, data: nested(s.path, v.json) }] }).get(s.path)!;
      expect(r.value).toEqual(v.value);
      expect(r.origin).toBe(`file:${CONFIG}`);
    });

    test("resolves from a config file, as a literally dotted key", () => {
      const r = resolveOnly({ files: [{ path: CONFIG, data: { [s.path]: v.json } }] }).get(s.path)!;
      expect(r.value).toEqual(v.value);
      expect(r.origin).toBe(`file:${CONFIG}`);
    });

    test(`resolves from ${envName(s.path)}`, () => {
      const r = resolveOnly({ env: { [envName(s.path)]: v.text } }).get(s.path)!;
      expect(r.value).toEqual(v.value);
      expect(r.origin).toBe(`env:${envName(s.path)}`);
    });

    for (const command of settingsCommands(s)) {
      for (const spelling of flagSpellings(s)) {
        test(`resolves from --${spelling} on mcpx ${command}`, () => {
          const parsed = parseCommandArgs(command, [`--${spelling}`, v.text], {});
          const r = resolveOnly({ flags: parsed.settings }).get(s.path)!;
          expect(r.value).toEqual(v.value);
          expect(r.origin).toBe(`flag:--${spelling}`);
        });
      }

      test(`is in the --help of mcpx ${command}, with every spelling and its variable`, () => {
        const args = cittyArgs(command, {});
        const def = args[flagName(s.path)];
        expect(def).toBeDefined();
        expect(def!.type).toBe("string");
        // citty would print a long alias with one dash (a spelling that fails), so aliases are named in the text
        for (const a of s.aliases ?? []) expect(def!.description).toContain(`--${a}`);
        expect(def!.description).toContain(envName(s.path));
      });
    }

    test("is neither advertised nor accepted by a command that does not take it", () => {
      for (const command of COMMANDS.filter((c) => !settingsCommands(s).includes(c))) {
        expect(cittyArgs(command, {})[flagName(s.path)]).toBeUndefined();
        expect(() => parseCommandArgs(command, [`--${flagName(s.path)}`, v.text], {})).toThrow(`unknown flag --${flagName(s.path)} for mcpx ${command}`);
      }
    });

    test("has a row in docs/settings.md naming its variable and flags", () => {
      const row = generated.split("\n").find((l) => l.startsWith(`| \`${s.path}\` |`));
      expect(row).toBeDefined();
      expect(row).toContain(envName(s.path));
      for (const f of flagSpellings(s)) expect(row).toContain(`--${f}`);
    });

    test("has a settings row (mcpx settings, /v1/settings) that shows the value (a secret: that it is set) and its origin", () => {
      const row = settingRow(resolveOnly({ env: { [envName(s.path)]: v.text } }).get(s.path)!);
      expect(row.path).toBe(s.path);
      expect(row.kind).toBe(s.kind);
      expect(row.env).toBe(envName(s.path));
      expect(row.flags).toEqual(flagSpellings(s).map((f) => `--${f}`));
      expect(row.default).toEqual(s.default);
      expect(row.value).toEqual(s.secret ? "(set; not shown)" : v.value);
      expect(row.origin).toBe(`env:${envName(s.path)}`);
      expect(row.description).toBe(s.description);
    });
  });
}
