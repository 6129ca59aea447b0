// The launcher on the embedded Bun: phase order, spliced source that must not break the template,
// named scripts, entry points and printed return values, and the script-side exit codes.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sandbox } from "./harness.ts";
import { phaseOrderTests } from "./phase-cases.ts";
import { expectExit, markersIn, mcpx, mcpxMerged } from "./support.ts";

phaseOrderTests("bun");

const sb = sandbox();
sb.write(".mcpx.json", "{}\n");
sb.write(
  ".mcpx/scripts/greet.ts",
  [
    "export default function (args: string[]) {",
    "  return { args, name: script.name };",
    "}",
    "export function hello(who: string, punct: string) {",
    "  return `hello ${who}${punct}`;",
    "}",
    "export function info() {",
    "  return { name: script.name, args: script.args, export: script.export, hasRunId: typeof " +
      "script.runId === 'string' && script.runId.length > 0, path: script.path };",
    "}",
    "",
  ].join("\n"),
);
sb.write("deep/er/still/.keep", "");

// A snippet holding everything that could end a comment, a template literal or a hole in the
// launcher: if any of it leaked into the template, the run would not parse or would lose lines.
const TRICKY = [
  "/* a block comment */ const tick = `back${'tick'}s */ and ${1 + 1}`;",
  'console.log("[1]", tick);',
  'console.log("[2] @suffix @before @import @onError */ /* ${not.a.hole}");',
  "// a trailing line comment with */ and ` and ${ and @suffix",
  'console.log("[3] end");',
].join("\n");

describe.concurrent("spliced source", () => {
  test("a snippet containing */, backticks, ${ and the text @suffix runs as written", async () => {
    const r = await mcpx(sb, ["exec", TRICKY]);
    expect(r.stdout).toBe("[1] backticks */ and 2\n[2] @suffix @before @import @onError */ /* ${not.a.hole}\n[3] end\n");
    expectExit(r, 0);
  });

  test("the same text inside phase lines does not break the launcher", async () => {
    const r = await mcpxMerged(sb, [
      "exec",
      "--before",
      'const b = `*/ ${"@suffix"}`; console.error("[before]", b) // */ `',
      "--prefix",
      "/* @onSuccess */ console.error('[prefix] @import ${x}')",
      "--on-success",
      'console.error("[onSuccess] */ `@suffix`")',
      "--suffix",
      'console.error("[suffix] @before */")',
      'console.log("[body]")',
    ]);
    expect(r.output.split("\n").filter((l) => l.startsWith("["))).toEqual([
      "[before] */ @suffix",
      "[prefix] @import ${x}",
      "[body]",
      "[onSuccess] */ `@suffix`",
      "[suffix] @before */",
    ]);
    expectExit(r, 0);
  });

  test("a const in one phase does not collide with the same const in another phase or the script", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--before",
      "const x = 1; console.error('b' + x)",
      "--suffix",
      "const x = 2; console.error('s' + x)",
      "const x = 3; console.log('body' + x)",
    ]);
    expect(r.stdout).toBe("body3\n");
    expect(markersIn(r.stderr, ["b1", "s2"])).toEqual(["b1", "s2"]);
    expectExit(r, 0);
  });
});

describe.concurrent("run: named scripts, entry points and returned values", () => {
  test("mcpx run NAME finds .mcpx/scripts/NAME.ts walking up from the working directory", async () => {
    const r = await mcpx(sb, ["run", "greet", "x", "y"], { cwd: join(sb.dir, "deep/er/still") });
    expect(JSON.parse(r.stdout)).toEqual({ args: ["x", "y"], name: "greet" });
    expectExit(r, 0);
  });

  test("the default export gets the args array and a returned object is printed as JSON", async () => {
    const r = await mcpx(sb, ["run", "greet", "one", "two", "three"]);
    expect(JSON.parse(r.stdout)).toEqual({ args: ["one", "two", "three"], name: "greet" });
    expectExit(r, 0);
  });

  test("--export NAME calls that export with the args spread and a returned string is printed as it is", async () => {
    const r = await mcpx(sb, ["run", "greet", "--export", "hello", "world", "!"]);
    expect(r.stdout).toBe("hello world!\n");
    expectExit(r, 0);
  });

  test("arguments after -- reach the script even when they look like flags", async () => {
    const r = await mcpx(sb, ["run", "greet", "--", "--export", "-x"]);
    expect(JSON.parse(r.stdout)).toEqual({ args: ["--export", "-x"], name: "greet" });
    expectExit(r, 0);
  });

  test("the script global carries path, name, args, export and runId", async () => {
    const r = await mcpx(sb, ["run", "greet", "--export", "info", "a1"]);
    const info = JSON.parse(r.stdout);
    expect(info).toEqual({ name: "greet", args: ["a1"], export: "info", hasRunId: true, path: join(sb.dir, ".mcpx/scripts/greet.ts") });
    expectExit(r, 0);
  });

  test("an --export that the module does not have is an error naming it", async () => {
    const r = await mcpx(sb, ["run", "greet", "--export", "nope"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("nope");
  });

  test("mcpx run of a name that resolves nowhere is a usage error (exit 2) naming it", async () => {
    const r = await mcpx(sb, ["run", "no-such-script"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("no-such-script");
  });
});

describe.concurrent("the default runtime", () => {
  test("a script runs on the embedded Bun by default", async () => {
    const r = await mcpx(sb, ["exec", "console.log(typeof Bun)"]);
    expect(r.stdout).toBe("object\n");
    expectExit(r, 0);
  });

  // a leaked BUN_BE_BUN would make a child mcpx behave as plain bun; a leaked MCPX_RUN hands the channel on
  test("a child the script starts sees neither BUN_BE_BUN nor the run's channel", async () => {
    const r = await mcpx(sb, [
      "exec",
      'const { spawnSync } = await import("node:child_process"); console.log(spawnSync("sh", ' +
        '["-c", "echo ${BUN_BE_BUN:-unset} ${MCPX_RUN:-unset}"]).stdout.toString().trim())',
    ]);
    expect(r.stdout).toBe("unset unset\n");
    expectExit(r, 0);
  });
});

describe.concurrent("exit codes of a script run", () => {
  test("a script that finishes exits 0", async () => {
    const r = await mcpx(sb, ["exec", "console.log('fine')"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("fine\n");
  });

  test("the script's own process.exit(3) is the exit code, and what it printed before is kept", async () => {
    const r = await mcpx(sb, ["exec", "console.log('leaving'); process.exit(3)"]);
    expectExit(r, 3);
    expect(r.stdout).toBe("leaving\n");
  });

  test("an uncaught error exits 1", async () => {
    const r = await mcpx(sb, ["exec", "throw new TypeError('nope')"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("nope");
  });

  test("a rejected await at the top level exits 1", async () => {
    const r = await mcpx(sb, ["exec", "await Promise.reject(new Error('rejected'))"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("rejected");
  });

  test("a phase that does not parse is a usage error (exit 2) naming the phase, before anything runs", async () => {
    const r = await mcpx(sb, ["exec", "--before", 'console.error("[ran]")', "--suffix", "if (", "console.log('[body]')"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("script.suffix");
    expect(r.stderr).not.toContain("[ran]");
    expect(r.stdout).not.toContain("[body]");
  });
});
