// Config files, MCPX_* variables and flags as the binary sees them: the null-splice layering of the
// script phases across all of them, `mcpx settings` showing where every line came from, exactly one
// file with --config / MCPX_CONFIG, "@file" source values, and the usage/config errors that exit 2
// before anything runs.

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, sandbox } from "./harness.ts";
import { SETTINGS } from "../../lib/settings/registry.ts";
import { COMMAND_DESCRIPTIONS } from "../../cmd/commands.ts";
import { expectExit, markersIn, mcpx, writeConfig } from "./support.ts";

const line = (marker: string) => `console.error(${JSON.stringify(marker)})`;

// One tree for the whole file:
//   $XDG_CONFIG_HOME/mcpx/config.json  the user file: script.prefix  [user]
//   .mcpx.json                         parent: script.before [p1, p2], exec.timeout 50s
//   proj/.mcpx.json                    nested: script.before [n1, null, n2], exec.timeout 40s
//   replace/.mcpx.json                 nested without null: script.before [r1]
//   other.json                         for --config / MCPX_CONFIG: script.before [o1]
const sb = sandbox();
const userFile = writeConfig(sb, "home/.config/mcpx/config.json", { script: { prefix: [line("[user]")] } });
const parentFile = writeConfig(sb, ".mcpx.json", { script: { before: [line("[p1]"), line("[p2]")] }, "exec.timeout": "50s" });
const nestedFile = writeConfig(sb, "proj/.mcpx.json", { script: { before: [line("[n1]"), null, line("[n2]")] }, exec: { timeout: "40s" } });
const replaceFile = writeConfig(sb, "replace/.mcpx.json", { script: { before: [line("[r1]")] } });
const otherFile = writeConfig(sb, "other.json", { script: { before: [line("[o1]")] } });
const PROJ = join(sb.dir, "proj");

const ENV_BEFORE = { MCPX_SCRIPT_BEFORE: `${line("[e1]")}\n-` };
const FLAGS_BEFORE = ["--before", line("[f1]"), "--before", "-", "--before", line("[f2]")];
const ALL = ["[f1]", "[e1]", "[n1]", "[p1]", "[p2]", "[n2]", "[f2]", "[o1]", "[r1]", "[user]", "[body]"];

/** what each layer contributes, in the spliced order, with the origin `mcpx settings` must name */
const SPLICED = [
  { marker: "[f1]", origin: "flag:--before" },
  { marker: "[e1]", origin: "env:MCPX_SCRIPT_BEFORE" },
  { marker: "[n1]", origin: nestedFile },
  { marker: "[p1]", origin: parentFile },
  { marker: "[p2]", origin: parentFile },
  { marker: "[n2]", origin: nestedFile },
  { marker: "[f2]", origin: "flag:--before" },
];
const WITHOUT_FLAGS = SPLICED.filter((s) => !s.origin.startsWith("flag:"));

type Row = {
  path: string;
  value: unknown;
  origin: string;
  items?: Array<{ value: unknown; origin: string }>;
  shadowed: Array<{ value: unknown; origin: string }>;
};

/** the `settings get` text lines that carry each expected line, in order: each must name its marker and its origin */
function expectOriginLines(text: string, expected: Array<{ marker: string; origin: string }>): void {
  const lines = text.split("\n").filter((l) => ALL.some((m) => l.includes(m)));
  expect(lines.length).toBe(expected.length);
  expected.forEach((e, i) => {
    expect(lines[i]).toContain(e.marker);
    expect(lines[i]).toContain(e.origin);
  });
}

function expectItems(row: Row, expected: Array<{ marker: string; origin: string }>): void {
  expect(row.path).toBe("script.before");
  expect(row.items!.map((i) => i.value)).toEqual(expected.map((e) => line(e.marker)));
  for (const [i, item] of row.items!.entries()) expect(item.origin).toContain(expected[i]!.origin);
}

describe.concurrent("phases layered by the null-splice rule", () => {
  test("config lines in two files, MCPX_SCRIPT_BEFORE and --before flags with - combine by the null-splice rule", async () => {
    const r = await mcpx(sb, ["exec", ...FLAGS_BEFORE, 'console.error("[body]")'], { cwd: PROJ, env: ENV_BEFORE });
    expect(markersIn(r.stderr, ALL)).toEqual(["[f1]", "[e1]", "[n1]", "[p1]", "[p2]", "[n2]", "[f2]", "[user]", "[body]"]);
    expectExit(r, 0);
  });

  test("--script-before is the long spelling of --before and layers the same way", async () => {
    const r = await mcpx(sb, ["exec", "--script-before", line("[f1]"), "--script-before", "-", 'console.error("[body]")'], { cwd: PROJ });
    expect(markersIn(r.stderr, ALL)).toEqual(["[f1]", "[n1]", "[p1]", "[p2]", "[n2]", "[user]", "[body]"]);
    expectExit(r, 0);
  });

  test("a nearer file without null replaces the lines it inherits", async () => {
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { cwd: join(sb.dir, "replace") });
    expect(markersIn(r.stderr, ALL)).toEqual(["[r1]", "[user]", "[body]"]);
    expectExit(r, 0);
  });

  test("a flag without - replaces every inherited line", async () => {
    const r = await mcpx(sb, ["exec", "--before", line("[f1]"), 'console.error("[body]")'], { cwd: PROJ, env: ENV_BEFORE });
    expect(markersIn(r.stderr, ALL)).toEqual(["[f1]", "[user]", "[body]"]);
    expectExit(r, 0);
  });
});

describe.concurrent("mcpx settings", () => {
  test("settings get script.before shows each line's origin: the file it came from and env:MCPX_SCRIPT_BEFORE", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.before"], { cwd: PROJ, env: ENV_BEFORE });
    expectExit(r, 0);
    expectOriginLines(r.stdout, WITHOUT_FLAGS);
  });

  test("settings get script.before --json shows the same lines with the same origins", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.before", "--json"], { cwd: PROJ, env: ENV_BEFORE });
    expectExit(r, 0);
    expectItems(JSON.parse(r.stdout) as Row, WITHOUT_FLAGS);
  });

  // The contract: flags are a layer like any other, so `settings get` must show flag:--before.
  test("settings get script.before with --before flags shows those lines as flag:--before, in text and in --json", async () => {
    const text = await mcpx(sb, ["settings", "get", "script.before", ...FLAGS_BEFORE], { cwd: PROJ, env: ENV_BEFORE });
    expect(text.stderr).toBe("");
    expectExit(text, 0);
    expectOriginLines(text.stdout, SPLICED);
    const json = await mcpx(sb, ["settings", "get", "script.before", "--json", ...FLAGS_BEFORE], { cwd: PROJ, env: ENV_BEFORE });
    expectExit(json, 0);
    expectItems(JSON.parse(json.stdout) as Row, SPLICED);
  });

  test("settings get shows the lines a replacing file shadowed", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.before", "--json"], { cwd: join(sb.dir, "replace") });
    const row = JSON.parse(r.stdout) as Row;
    expectItems(row, [{ marker: "[r1]", origin: replaceFile }]);
    expect(row.shadowed.map((s) => s.value)).toEqual([line("[p1]"), line("[p2]")]);
    for (const s of row.shadowed) expect(s.origin).toContain(parentFile);
  });

  test("for a scalar setting the nearer config file wins, and settings get says what it shadowed", async () => {
    const r = await mcpx(sb, ["settings", "get", "exec.timeout", "--json"], { cwd: PROJ });
    const row = JSON.parse(r.stdout) as Row;
    expect(row.value).toBe(40_000);
    expect(row.origin).toContain(nestedFile);
    expect(row.shadowed.some((s) => s.origin.includes(parentFile))).toBe(true);
  });

  test("settings list lists every setting path", async () => {
    const r = await mcpx(sb, ["settings", "list"]);
    expectExit(r, 0);
    const listed = r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(/\s/)[0]);
    // the minimum, which the registry must hold …
    const minimum = [
      "script.before",
      "script.prefix",
      "script.onSuccess",
      "script.onError",
      "script.suffix",
      "script.runtime",
      "exec.timeout",
      "logging.format",
      "logging.level",
      "hooks",
    ];
    for (const p of minimum) expect(SETTINGS.map((s) => s.path)).toContain(p);
    // … and every registry entry is listed
    for (const s of SETTINGS) expect(listed).toContain(s.path);
  });

  test("settings list and get show a secret only as set, in text and --json, as /v1/settings does", async () => {
    const env = { MCPX_DAEMON_TOKEN: "tok-abcdefghijklmnop", MCPX_MODEL_API_KEY: "key-abcdefghijklmnop" };
    const outputs = await Promise.all(
      [
        ["settings", "list"],
        ["settings", "list", "--json"],
        ["settings", "get", "daemon.token"],
        ["settings", "get", "model.apiKey", "--json"],
      ].map((argv) => mcpx(sb, argv, { env })),
    );
    for (const r of outputs) {
      expectExit(r, 0);
      expect(r.stdout).not.toContain("abcdefghijklmnop");
    }
    expect(outputs[2]!.stdout).toContain("(set; not shown)");
    expect(JSON.parse(outputs[3]!.stdout).value).toBe("(set; not shown)");
  });

  test("MCP_HOOK_SERVERS is the variable of the setting hooks.mcpServers: settings get shows its value and origin", async () => {
    const r = await mcpx(sb, ["settings", "get", "hooks.mcpServers", "--json"], { env: { MCP_HOOK_SERVERS: "fake,other" } });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      value: "fake,other",
      origin: "env:MCP_HOOK_SERVERS",
      env: "MCP_HOOK_SERVERS",
      flags: ["--hooks-mcp-servers"],
    });
  });

  test("a script and what it starts do not inherit the daemon token or the model key", async () => {
    const env = { MCPX_DAEMON_TOKEN: "tok-abcdefghijklmnop", MCPX_MODEL_API_KEY: "key-abcdefghijklmnop", MCPX_E2E_VISIBLE: "yes" };
    const snippet =
      'const { execSync } = await import("node:child_process"); ' +
      "console.log(JSON.stringify([process.env.MCPX_DAEMON_TOKEN ?? null, " +
      "process.env.MCPX_MODEL_API_KEY ?? null, process.env.MCPX_E2E_VISIBLE])); " +
      'console.log(execSync("env").toString().includes("abcdefghijklmnop"))';
    const r = await mcpx(sb, ["exec", snippet], { env });
    expectExit(r, 0);
    expect(r.stdout).toBe('[null,null,"yes"]\nfalse\n');
  });

  test("settings get of an unknown path is a usage error (exit 2) naming it", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.after"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("script.after");
  });
});

describe.concurrent("--config and MCPX_CONFIG", () => {
  test("without --config the user file is the lowest layer under the project files", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.prefix", "--json"], { cwd: PROJ });
    const row = JSON.parse(r.stdout) as Row;
    expect(row.items!.map((i) => i.value)).toEqual([line("[user]")]);
    expect(row.items![0]!.origin).toContain(userFile);
  });

  test("--config FILE uses exactly that file: no project file and no user file", async () => {
    const r = await mcpx(sb, ["exec", "--config", otherFile, 'console.error("[body]")'], { cwd: PROJ });
    expect(markersIn(r.stderr, ALL)).toEqual(["[o1]", "[body]"]);
    expectExit(r, 0);
  });

  test("--config FILE may also come before the command (either spelling)", async () => {
    for (const lead of [["--config", otherFile], [`--config=${otherFile}`]]) {
      const r = await mcpx(sb, [...lead, "exec", 'console.error("[body]")'], { cwd: PROJ });
      expect(markersIn(r.stderr, ALL)).toEqual(["[o1]", "[body]"]);
      expectExit(r, 0);
    }
  });

  test("any other flag before the command, or --config without a command, is exit 2 saying where it goes", async () => {
    const before = await mcpx(sb, ["--before", "x", "exec", "1"]);
    expectExit(before, 2);
    expect(before.stderr).toContain("--before before the command: flags go after it (mcpx COMMAND --before …)");
    const alone = await mcpx(sb, ["--config", otherFile]);
    expectExit(alone, 2);
    expect(alone.stderr).toContain("--config needs a file and then a command: mcpx --config FILE COMMAND");
  });

  test("MCPX_CONFIG uses exactly that file: no project file and no user file", async () => {
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { cwd: PROJ, env: { MCPX_CONFIG: otherFile } });
    expect(markersIn(r.stderr, ALL)).toEqual(["[o1]", "[body]"]);
    expectExit(r, 0);
  });

  test("settings get under --config names only that file as the origin", async () => {
    const r = await mcpx(sb, ["settings", "get", "script.before", "--json", "--config", otherFile], { cwd: PROJ });
    expectItems(JSON.parse(r.stdout) as Row, [{ marker: "[o1]", origin: otherFile }]);
  });

  test("--config naming a file that does not exist is a config error (exit 2) naming it", async () => {
    const missing = join(sb.dir, "no-such-config.json");
    const r = await mcpx(sb, ["exec", "--config", missing, 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain(missing);
    expect(r.stderr).not.toContain("[body]");
  });
});

describe.concurrent("@file source values", () => {
  sb.write("phase-lines/before.ts", 'console.error("[from a flag @file]");\n');
  sb.write("atfile/hooks/suffix.ts", 'console.error("[from a config @file]");\n');
  writeConfig(sb, "atfile/.mcpx.json", { script: { suffix: ["@hooks/suffix.ts"] } });

  test("a flag value @FILE uses the file's text", async () => {
    const r = await mcpx(sb, ["exec", "--before", "@phase-lines/before.ts", 'console.error("[body]")']);
    expect(markersIn(r.stderr, ["[from a flag @file]", "[body]"])).toEqual(["[from a flag @file]", "[body]"]);
    expectExit(r, 0);
  });

  test("a config line @FILE uses the text of that file, relative to the config file", async () => {
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { cwd: join(sb.dir, "atfile") });
    expect(markersIn(r.stderr, ["[body]", "[from a config @file]"])).toEqual(["[body]", "[from a config @file]"]);
    expectExit(r, 0);
  });

  test("an @FILE that cannot be read is an error (exit 2) naming it, before anything runs", async () => {
    const r = await mcpx(sb, ["exec", "--before", "@phase-lines/missing.ts", "--suffix", line("[ran]"), 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("missing.ts");
    expect(r.stderr).not.toContain("[ran]");
    expect(r.stderr).not.toContain("[body]");
  });
});

describe.concurrent("usage and config errors exit 2 before anything runs", () => {
  test("two spellings of one setting that disagree are an error naming both", async () => {
    const r = await mcpx(sb, ["exec", "--before", line("[x]"), "--script-before", line("[y]"), 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("--before");
    expect(r.stderr).toContain("--script-before");
    expect(r.stderr).not.toContain("[body]");
  });

  test("an unknown flag is an error naming the flag", async () => {
    const r = await mcpx(sb, ["exec", "--befor", line("[x]"), "--suffix", line("[ran]"), 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("--befor");
    expect(r.stderr).not.toContain("[ran]");
    expect(r.stderr).not.toContain("[body]");
  });

  test("an unknown single-dash flag is an error naming it as written and saying what is accepted", async () => {
    const r = await mcpx(sb, ["exec", "-z", 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("-z");
    expect(r.stderr).toContain("accepted");
    expect(r.stderr).not.toContain("[body]");
  });

  test("an unknown command is an error naming it", async () => {
    const r = await mcpx(sb, ["exce", "console.log(1)"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("exce");
  });

  test("a value outside an enum is an error naming the accepted values", async () => {
    const r = await mcpx(sb, ["exec", "--runtime", "rhino", 'console.error("[body]")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("rhino");
    expect(r.stderr).toContain("deno");
    expect(r.stderr).not.toContain("[body]");
  });

  test("an unparseable MCPX_* value is an error naming the variable", async () => {
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { env: { MCPX_EXEC_TIMEOUT: "soon" } });
    expectExit(r, 2);
    expect(r.stderr).toContain("MCPX_EXEC_TIMEOUT");
    expect(r.stderr).not.toContain("[body]");
  });

  test("a config file that does not parse is an error naming the file and the line", async () => {
    const broken = sb.write("broken/.mcpx.json", '{\n  "script": {\n    "before": ["x" "y"]\n  }\n}\n');
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { cwd: join(sb.dir, "broken"), env: { MCPX_SCRIPT_SUFFIX: line("[ran]") } });
    expectExit(r, 2);
    expect(r.stderr).toContain(`${broken}:3`);
    expect(r.stderr).not.toContain("[ran]");
    expect(r.stderr).not.toContain("[body]");
  });

  test("an unknown key in a config file is an error naming the file and the key", async () => {
    const typo = writeConfig(sb, "typo/.mcpx.json", { script: { after: [line("[x]")] } });
    const r = await mcpx(sb, ["exec", 'console.error("[body]")'], { cwd: join(sb.dir, "typo") });
    expectExit(r, 2);
    expect(r.stderr).toContain(typo);
    expect(r.stderr).toContain("script.after");
    expect(r.stderr).not.toContain("[body]");
  });
});

describe.concurrent("--version and --help", () => {
  test("mcpx --version prints the package version", async () => {
    const r = await mcpx(sb, ["--version"]);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expectExit(r, 0);
  });

  test("mcpx --help lists every command of the table with its description, and exits 0", async () => {
    const r = await mcpx(sb, ["--help"]);
    expectExit(r, 0);
    for (const [name, description] of Object.entries(COMMAND_DESCRIPTIONS))
      expect(r.stdout).toMatch(new RegExp(`^\\s*${name}\\s+${description.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "m"));
  });

  // the top-level help reads the table without loading the commands: each command must really exist
  for (const [name, description] of Object.entries(COMMAND_DESCRIPTIONS)) {
    test(`mcpx ${name} --help is that command's own help, with the table's description`, async () => {
      const r = await mcpx(sb, [name, "--help"]);
      expectExit(r, 0);
      expect(r.stdout).toStartWith(`${description} (mcpx ${name} v`);
      expect(r.stdout).toContain(`USAGE mcpx ${name}`);
    });
  }

  test("mcpx exec --help names every flag spelling of the settings exec takes", async () => {
    const r = await mcpx(sb, ["exec", "--help"]);
    expectExit(r, 0);
    const help = r.stdout + r.stderr;
    for (const flag of [
      "--before",
      "--script-before",
      "--prefix",
      "--on-success",
      "--on-error",
      "--suffix",
      "--runtime",
      "--timeout",
      "--json",
      "--output",
      "--config",
    ]) {
      expect(help).toContain(flag);
    }
  });
});

describe("files of the working directory that are Bun's, not mcpx's", () => {
  test("a .env and a bunfig.toml there are not read by mcpx (no setting, no preload); the script's Bun runtime reads them as Bun does", async () => {
    const own = sandbox();
    const marks = join(own.dir, "preloaded.txt");
    own.write(".env", "MCPX_LOGGING_LEVEL=bogus\nFROM_DOTENV=yes\n");
    own.write("bunfig.toml", 'preload = ["./preload.ts"]\n');
    own.write("preload.ts", `require("node:fs").appendFileSync(${JSON.stringify(marks)}, (process.env.BUN_BE_BUN ? "runtime" : "mcpx") + "\\n");\n`);
    // a .env read by mcpx would make logging.level "bogus": a settings error, exit 2
    const level = await mcpx(own, ["settings", "get", "logging.level", "--json"]);
    expectExit(level, 0);
    expect(JSON.parse(level.stdout)).toMatchObject({ value: "info", origin: "default" });
    const run = await mcpx(own, ["exec", "console.log(process.env.FROM_DOTENV)"]);
    expectExit(run, 0);
    expect(run.stdout).toBe("yes\n");
    // the preload ran in the script's runtime, never in mcpx
    expect(readFileSync(marks, "utf8").split("\n").filter(Boolean)).toEqual(["runtime"]);
  });
});
