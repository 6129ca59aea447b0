// resolveSettings: the layers (default < config files farthest → nearest < environment < flags),
// origins and shadowed values, the null-splice rule across every layer, @FILE source values, and
// strict parsing with errors that name the file, key, variable or flag and say what is accepted.
// Every input is passed explicitly (no process.env, no real config chain); files live in a temp dir.

import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseCommandArgs } from "../../lib/settings/flags.ts";
import type { SettingDecl } from "../../lib/settings/setting-decl.ts";
import { SettingsError, resolveSettings, scalarFromText, type FlagValue, type SettingsInput } from "../../lib/settings/resolve.ts";
import { suggest } from "../../lib/util/did-you-mean.ts";
import { removeTempRoots, tempRoot, write } from "./temp-files.ts";

afterAll(removeTempRoots);

const USER = "/home/u/.config/mcpx/config.json";
const PROJECT = "/work/p/.mcpx.json";

function resolve(input: Partial<SettingsInput>) {
  return resolveSettings({ files: [], env: {}, flags: [], cwd: "/work/p", ...input });
}

/** flags exactly as `mcpx run ARGV` would produce them */
function runFlags(...argv: string[]): FlagValue[] {
  return parseCommandArgs("run", argv, {}).settings;
}

/** the SettingsError message fn throws; fails the test when it throws nothing or something else */
function settingsError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof SettingsError) return err.message;
    throw err;
  }
  throw new Error("expected a SettingsError, nothing was thrown");
}

describe("precedence and origins", () => {
  const layers: Partial<SettingsInput> = {
    files: [
      { path: USER, data: { logging: { format: "json" } } },
      { path: PROJECT, data: { "logging.format": "logfmt" } },
    ],
    env: { MCPX_LOGGING_FORMAT: "compact" },
    flags: runFlags("--logging-format", "bare"),
  };

  test("with nothing set, every setting is its default with origin default", () => {
    for (const r of resolve({}).values()) {
      expect(r.origin).toBe("default");
      expect(r.shadowed).toEqual([]);
    }
    expect(resolve({}).get("exec.timeout")!.value).toBe(0);
    expect(resolve({}).get("mcp.callTimeout")!.value).toBe(60_000);
    expect(resolve({}).get("script.before")!.value).toEqual([]);
  });

  test("a flag beats the environment, which beats the nearest file, which beats the farthest, which beats the default", () => {
    const r = resolve(layers).get("logging.format")!;
    expect(r.value).toBe("bare");
    expect(r.origin).toBe("flag:--logging-format");
  });

  test("each layer wins once every layer above it is gone", () => {
    expect(resolve({ ...layers, flags: [] }).get("logging.format")).toMatchObject({ value: "compact", origin: "env:MCPX_LOGGING_FORMAT" });
    expect(resolve({ ...layers, flags: [], env: {} }).get("logging.format")).toMatchObject({ value: "logfmt", origin: `file:${PROJECT}` });
    expect(resolve({ ...layers, flags: [], env: {}, files: layers.files!.slice(0, 1) }).get("logging.format")).toMatchObject({
      value: "json",
      origin: `file:${USER}`,
    });
  });

  test("a scalar remembers every value it shadowed, nearest first", () => {
    expect(resolve(layers).get("logging.format")!.shadowed).toEqual([
      { value: "compact", origin: "env:MCPX_LOGGING_FORMAT" },
      { value: "logfmt", origin: `file:${PROJECT}` },
      { value: "json", origin: `file:${USER}` },
      { value: "text", origin: "default" },
    ]);
  });

  test("a layer that does not set a setting is skipped, not counted as shadowing", () => {
    const r = resolve({
      files: [
        { path: USER, data: { "exec.timeout": "5s" } },
        { path: PROJECT, data: {} },
      ],
    }).get("exec.timeout")!;
    expect(r).toMatchObject({ value: 5000, origin: `file:${USER}` });
    expect(r.shadowed).toEqual([{ value: 0, origin: "default" }]);
  });

  test("a list that replaces what it inherits reports the inherited items as shadowed", () => {
    const r = resolve({
      files: [
        { path: USER, data: { script: { before: ["u1", "u2"] } } },
        { path: PROJECT, data: { script: { before: ["p1"] } } },
      ],
    }).get("script.before")!;
    expect(r.value).toEqual(["p1"]);
    expect(r.origin).toBe(`file:${PROJECT}`);
    expect(r.shadowed).toEqual([
      { value: "u1", origin: `file:${USER}` },
      { value: "u2", origin: `file:${USER}` },
    ]);
  });

  test("an empty list in a nearer file clears the inherited lines, and says so", () => {
    const r = resolve({
      files: [
        { path: USER, data: { "script.suffix": ["u"] } },
        { path: PROJECT, data: { "script.suffix": [] } },
      ],
    }).get("script.suffix")!;
    expect(r.value).toEqual([]);
    expect(r.shadowed).toEqual([{ value: "u", origin: `file:${USER}` }]);
  });
});

describe("the null-splice rule across every layer", () => {
  test('the design\'s example: ["a", null, "b"] over ["x","y"] is ["a","x","y","b"]', () => {
    const r = resolve({
      files: [
        { path: USER, data: { "script.before": ["x", "y"] } },
        { path: PROJECT, data: { "script.before": ["a", null, "b"] } },
      ],
    }).get("script.before")!;
    expect(r.value).toEqual(["a", "x", "y", "b"]);
    expect(r.shadowed).toEqual([]);
  });

  test("default, two files, the environment and flags splice into one list, each line keeping its origin", () => {
    const r = resolve({
      files: [
        { path: USER, data: { script: { prefix: ["u"] } } },
        { path: PROJECT, data: { script: { prefix: ["p1", null, "p2"] } } },
      ],
      env: { MCPX_SCRIPT_PREFIX: "e\n-" },
      flags: runFlags("--prefix", "-", "--prefix", "f"),
    }).get("script.prefix")!;
    expect(r.items).toEqual([
      { value: "e", origin: "env:MCPX_SCRIPT_PREFIX" },
      { value: "p1", origin: `file:${PROJECT}` },
      { value: "u", origin: `file:${USER}` },
      { value: "p2", origin: `file:${PROJECT}` },
      { value: "f", origin: "flag:--prefix" },
    ]);
    expect(r.value).toEqual(["e", "p1", "u", "p2", "f"]);
    expect(r.origin).toBe("flag:--prefix");
  });

  test("a lone splice mark on a flag inherits unchanged", () => {
    const r = resolve({ env: { MCPX_SCRIPT_ON_ERROR: "a\nb" }, flags: runFlags("--on-error", "-") }).get("script.onError")!;
    expect(r.value).toEqual(["a", "b"]);
  });

  test("flags without a splice mark replace the file and environment lines", () => {
    const r = resolve({
      files: [{ path: PROJECT, data: { "script.onSuccess": ["p"] } }],
      env: { MCPX_SCRIPT_ON_SUCCESS: "e" },
      flags: runFlags("--on-success", "f"),
    }).get("script.onSuccess")!;
    expect(r.value).toEqual(["f"]);
    expect(r.shadowed.map((s) => s.value)).toEqual(["p", "e"]);
  });

  test("splicing over the empty default gives just the layer's own lines", () => {
    expect(resolve({ flags: runFlags("--suffix", "-", "--suffix", "s") }).get("script.suffix")!.value).toEqual(["s"]);
  });

  test("hooks splice the same way: null in a file, null in JSON on a flag, - on a flag", () => {
    const h = (name: string) => ({ on: "script", phase: "before", run: ["echo", name] });
    const r = resolve({
      files: [
        { path: USER, data: { hooks: [h("u")] } },
        { path: PROJECT, data: { hooks: [null, h("p")] } },
      ],
      flags: runFlags("--hooks", JSON.stringify([h("f1"), null]), "--hooks", "-"),
    }).get("hooks")!;
    // flag layer: [f1, null, null] — every null splices a full copy of what it inherits
    expect(r.value).toEqual([h("f1"), h("u"), h("p"), h("u"), h("p")]);
  });

  test("a lone - in MCPX_HOOKS splices, as - does on --hooks", () => {
    const hook = { on: "script", phase: "suffix", run: ["true"] };
    const files = [{ path: PROJECT, data: { hooks: [hook] } }];
    expect(resolve({ files, flags: runFlags("--hooks", "-") }).get("hooks")!.value).toEqual([hook]);
    // design §1: "null (JSON) or - (flag/env)"; today MCPX_HOOKS=- is refused as invalid JSON
    expect(resolve({ files, env: { MCPX_HOOKS: "-" } }).get("hooks")!.value).toEqual([hook]);
  });
});

describe("@FILE source values", () => {
  test("in a config file, @FILE is relative to that file's directory", () => {
    const root = tempRoot("mcpx-settings-");
    const config = join(root, "proj", ".mcpx.json");
    write(join(root, "proj", "hooks", "before.ts"), 'log("from file")\n');
    const r = resolve({ cwd: join(root, "elsewhere"), files: [{ path: config, data: { script: { before: ["@hooks/before.ts", "inline()"] } } }] }).get(
      "script.before",
    )!;
    expect(r.value).toEqual(['log("from file")\n', "inline()"]);
  });

  test("a config file may give one source line as a plain string, @FILE included", () => {
    const root = tempRoot("mcpx-settings-");
    write(join(root, "p.ts"), "p()");
    expect(resolve({ files: [{ path: join(root, ".mcpx.json"), data: { "script.prefix": "@p.ts" } }] }).get("script.prefix")!.value).toEqual(["p()"]);
  });

  test("on a flag and in a variable, @FILE is relative to the current directory", () => {
    const root = tempRoot("mcpx-settings-");
    write(join(root, "cwd", "s.ts"), "s()");
    write(join(root, "cwd", "e.ts"), "e()");
    const r = resolve({ cwd: join(root, "cwd"), env: { MCPX_SCRIPT_SUFFIX: "@e.ts\n-" }, flags: runFlags("--suffix", "-", "--suffix", "@s.ts") });
    expect(r.get("script.suffix")!.value).toEqual(["e()", "s()"]);
  });

  test("an absolute @FILE is read as is", () => {
    const root = tempRoot("mcpx-settings-");
    const file = write(join(root, "abs.ts"), "abs()");
    expect(resolve({ flags: runFlags("--before", `@${file}`) }).get("script.before")!.value).toEqual(["abs()"]);
  });

  test("an @FILE that cannot be read names the flag, the path and the reason", () => {
    const root = tempRoot("mcpx-settings-");
    const msg = settingsError(() => resolve({ cwd: root, flags: runFlags("--on-error", "@missing.ts") }));
    expect(msg).toContain("--on-error");
    expect(msg).toContain(join(root, "missing.ts"));
    expect(msg).toContain("ENOENT");
  });

  test("an @FILE in a config file that cannot be read names the file and key", () => {
    const root = tempRoot("mcpx-settings-");
    const config = join(root, ".mcpx.json");
    const msg = settingsError(() => resolve({ files: [{ path: config, data: { script: { before: ["ok()", "@nope.ts"] } } }] }));
    expect(msg).toStartWith(`${config} key script.before[1]: @nope.ts names a file that cannot be read`);
  });

  test("@ only means a file in source settings: an enum value starting with @ is just a bad value", () => {
    expect(settingsError(() => resolve({ env: { MCPX_LOGGING_FORMAT: "@fmt" } }))).toContain('"@fmt" is not a valid logging.format');
  });
});

describe("config file keys", () => {
  test("an unknown top-level key is an error naming the file and suggesting the near miss", () => {
    const msg = settingsError(() => resolve({ files: [{ path: PROJECT, data: { scirpt: { before: [] } } }] }));
    expect(msg).toStartWith(`${PROJECT}: unknown key "scirpt"`);
    expect(msg).toContain("(did you mean script?)");
  });

  test("an unknown nested key lists the group's settings and suggests the near miss", () => {
    const msg = settingsError(() => resolve({ files: [{ path: PROJECT, data: { script: { befor: ["x"] } } }] }));
    expect(msg).toStartWith(`${PROJECT}: unknown setting "script.befor": use one of script.before, script.prefix`);
    expect(msg).toContain("(did you mean script.before?)");
  });

  test("an unknown dotted key suggests the setting it nearly spells", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { "logging.fromat": "json" } }] }))).toContain("(did you mean logging.format?)");
  });

  test("a key nothing is near gets no suggestion, only the list", () => {
    const msg = settingsError(() => resolve({ files: [{ path: PROJECT, data: { zzzzzzzzzzzz: 1 } }] }));
    expect(msg).not.toContain("did you mean");
    expect(msg).toContain("use one of");
  });

  test("$schema is allowed", () => {
    expect(resolve({ files: [{ path: PROJECT, data: { $schema: "https://example.invalid/s.json" } }] }).get("logging.format")!.value).toBe("text");
  });

  test("a group key holding a non-object is refused as a misplaced value, not as an unknown key", () => {
    const msg = settingsError(() => resolve({ files: [{ path: PROJECT, data: { logging: "json" } }] }));
    // today: `unknown key "logging": use one of …, logging, … (did you mean logging?)`, which contradicts itself
    expect(msg).not.toContain('unknown key "logging"');
    expect(msg).toContain("logging.format");
  });

  test("a dotted key and its nested form that agree are fine", () => {
    expect(resolve({ files: [{ path: PROJECT, data: { "exec.timeout": "2s", exec: { timeout: "2s" } } }] }).get("exec.timeout")!.value).toBe(2000);
  });

  test("a dotted key and its nested form that disagree are an error naming the file and the key", () => {
    const msg = settingsError(() => resolve({ files: [{ path: PROJECT, data: { "exec.timeout": "2s", exec: { timeout: "3s" } } }] }));
    expect(msg).toBe(`${PROJECT}: "exec.timeout" is given twice, as a dotted key and nested, with different values: keep one`);
  });

  test("a list setting given as an object is an error saying a list is expected", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { "script.before": { a: 1 } } }] }))).toBe(
      `${PROJECT} key script.before: expected a list (JSON array) or one string, got object`,
    );
  });

  test("a non-string line in a source list names its index", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { "script.before": ["ok", 3] } }] }))).toBe(
      `${PROJECT} key script.before[1]: expected a string or null, got number`,
    );
  });

  test("a hook that is not an object names its index", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { hooks: [{ on: "script" }, "echo hi"] } }] }))).toBe(
      `${PROJECT} key hooks[1]: expected a JSON object or null, got string`,
    );
  });
});

describe("flags", () => {
  test("two spellings of one list setting that disagree are refused, naming both", () => {
    expect(settingsError(() => resolve({ flags: runFlags("--before", "a", "--script-before", "b") }))).toBe(
      "--before and --script-before are two spellings of script.before and they disagree: use one of them (repeat it to give several lines)",
    );
  });

  test("two spellings of one list setting that agree are one value, not an error", () => {
    const r = resolve({ flags: runFlags("--before", "a", "--script-before", "a") });
    expect(r.get("script.before")!.value).toEqual(["a"]);
  });

  test("two spellings of one scalar that disagree are refused, naming both", () => {
    expect(settingsError(() => resolve({ flags: runFlags("--timeout", "1s", "--exec-timeout", "2s") }))).toContain(
      "--timeout and --exec-timeout are two spellings of exec.timeout",
    );
  });

  test("a scalar flag given twice is refused, not last-wins", () => {
    expect(settingsError(() => resolve({ flags: runFlags("--timeout", "1s", "--timeout", "2s") }))).toBe(
      "--timeout was given 2 times; exec.timeout takes one value",
    );
  });

  test("an alias resolves with its own spelling as the origin", () => {
    expect(resolve({ flags: runFlags("--runtime", "deno") }).get("script.runtime")).toMatchObject({ value: "deno", origin: "flag:--runtime" });
  });

  test("invalid JSON on --hooks names the flag and says what to give", () => {
    const msg = settingsError(() => resolve({ flags: runFlags("--hooks", "{on:script}") }));
    expect(msg).toStartWith("--hooks: not valid JSON");
    expect(msg).toContain("give an object, or an array of objects and nulls");
  });
});

describe("strict scalar parsing", () => {
  test("a duration without a unit is refused wherever it comes from, naming where and the accepted forms", () => {
    expect(settingsError(() => resolve({ env: { MCPX_EXEC_TIMEOUT: "30" } }))).toBe(
      'MCPX_EXEC_TIMEOUT: "30" is not a duration: use a number with a unit, like 250ms, 2.5s, 1m or 1h (0 for none) (exec.timeout)',
    );
    expect(settingsError(() => resolve({ flags: runFlags("--timeout", "30") }))).toStartWith('--timeout: "30" is not a duration');
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { exec: { timeout: "30" } } }] }))).toStartWith(
      `${PROJECT} key exec.timeout: "30" is not a duration`,
    );
  });

  test("a duration given as a JSON number is refused, asking for a string with a unit", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { "mcp.callTimeout": 30 } }] }))).toBe(
      `${PROJECT} key mcp.callTimeout: expected a duration string like 30s, got number`,
    );
  });

  test("durations parse to milliseconds in every layer", () => {
    expect(resolve({ env: { MCPX_MCP_CALL_TIMEOUT: "1.5m" } }).get("mcp.callTimeout")!.value).toBe(90_000);
    expect(resolve({ flags: runFlags("--timeout", "0") }).get("exec.timeout")!.value).toBe(0);
  });

  test("an enum value that is not accepted lists the values and suggests the near miss", () => {
    expect(settingsError(() => resolve({ env: { MCPX_LOGGING_FORMAT: "jsn" } }))).toBe(
      'MCPX_LOGGING_FORMAT: "jsn" is not a valid logging.format: use one of text, json, logfmt, compact, bare (did you mean json?)',
    );
  });

  test("enum values are case-sensitive, with the right case suggested", () => {
    expect(settingsError(() => resolve({ flags: runFlags("--runtime", "Deno") }))).toContain("(did you mean deno?)");
  });

  test("an enum given as a non-string in a config file says what is expected", () => {
    expect(settingsError(() => resolve({ files: [{ path: PROJECT, data: { "logging.level": 3 } }] }))).toBe(
      `${PROJECT} key logging.level: expected one of debug, info, warn, error, silent, got number`,
    );
  });

  const int: SettingDecl = { path: "test.count", kind: "int", default: "0", description: "" };
  const bool: SettingDecl = { path: "test.flag", kind: "bool", default: "false", description: "" };

  test("ints: whole numbers only, surrounding space tolerated", () => {
    expect(scalarFromText(int, "7", "X")).toBe(7);
    expect(scalarFromText(int, "-3", "X")).toBe(-3);
    expect(scalarFromText(int, " 12 ", "X")).toBe(12);
    for (const bad of ["7.5", "1e3", "seven", "", "0x10", "7s"]) {
      expect(() => scalarFromText(int, bad, "MCPX_TEST_COUNT")).toThrow(`MCPX_TEST_COUNT: "${bad}" is not a whole number (test.count)`);
    }
  });

  test("bools: true/1/yes and false/0/no, any case; anything else is refused saying true or false", () => {
    for (const t of ["true", "TRUE", "1", "yes", " Yes "]) expect(scalarFromText(bool, t, "X")).toBe(true);
    for (const f of ["false", "False", "0", "no"]) expect(scalarFromText(bool, f, "X")).toBe(false);
    for (const bad of ["", "on", "off", "y", "2"])
      expect(() => scalarFromText(bool, bad, "--test-flag")).toThrow(`--test-flag: "${bad}" is not a boolean (test.flag): use true or false`);
  });

  test("suggest proposes a near miss only", () => {
    expect(suggest("jsn", ["text", "json"])).toBe(" (did you mean json?)");
    expect(suggest("completely-different", ["text", "json"])).toBe("");
  });
});
