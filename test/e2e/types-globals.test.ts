// The types match the README: `mcpx run` writes mcpx-globals.d.ts beside a script, and a script that
// uses every documented global (a namespace's tools and their .raw, tools["name"], call, log.*,
// emit, script, result, ToolError, resources.read, prompts.get, and a plugin's namespace) type-checks under tsc --strict. The
// file is written safely (a planted symlink is replaced, never followed), and plugin namespaces
// are in mcpx ls and mcpx types as they are in scripts.

import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { lstatSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const TSC = join(ROOT, "node_modules/.bin/tsc");
const sb = sandbox();
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer({ FAKE_MCP_FEATURES: "1" }), "my-server": fakeServer() },
  plugins: [join(ROOT, "fixtures/plugins/guard")],
});

/** every global the README documents, used the way it documents them */
const EVERY_GLOBAL = `/// <reference path="./mcpx-globals.d.ts" />
export default async function main(args: string[]) {
  const echoed = await fake.echo({ message: "hi" });
  const raw = await fake.echo.raw({ message: "hi" });
  const texts: unknown[] = raw.content;
  const sum: { sum: number } = await fake.add({ a: 1, b: 2 });
  const viaTools = await tools["my-server"].echo({ message: "x" });
  const viaToolsRaw = await tools["my-server"].get_sum.raw({ values: [1] });
  const viaCall: unknown = await call("fake", "get-sum", { values: [1, 2] });
  const viaCallRaw: unknown = await call("fake", "echo", { message: "r" }, { raw: true });
  const fromPlugin = await guard.echo({ message: "plugin" });
  const note: string | undefined = (await resources.read("fake", "fake://note")).contents[0]?.text;
  const greeting = (await prompts.get("fake", "greet", { name: "Ada" })).messages[0]?.content.text;
  if (note !== "a note from fake" || greeting !== "Hello Ada") throw new Error(\`resources.read or prompts.get gave \${note}, \${greeting}\`);
  log("info"); log.debug("d"); log.info("i"); log.warn("w"); log.error("e");
  emit({ echoed, texts, sum, viaTools, viaToolsRaw, viaCall, viaCallRaw, fromPlugin });
  const where: string = script.path + script.name + script.runId + script.args.join(",") + (script.export ?? "");
  result.value = where;
  try {
    await fake.fail({ message: "no" });
  } catch (err) {
    if (err instanceof ToolError) return [err.server, err.tool, err.code, err.raw, args.length];
  }
  return sum.sum;
}
`;

describe("mcpx-globals.d.ts", () => {
  test("a script using every documented global runs, and type-checks under tsc --strict against the file mcpx run wrote", async () => {
    const script = sb.write("every.ts", EVERY_GLOBAL);
    const r = await mcpx(sb, ["run", "--timeout", "30s", script]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual(["fake", "fail", "TOOL_ERROR", expect.anything(), 0]);
    const dts = readFileSync(join(sb.dir, "mcpx-globals.d.ts"), "utf8");
    expect(dts).toContain("const guard: McpxServer_guard;");
    const tc = spawnSync(
      TSC,
      ["--noEmit", "--strict", "--target", "esnext", "--module", "esnext", "--moduleResolution", "bundler", "--lib", "esnext", "every.ts"],
      { cwd: sb.dir, encoding: "utf8" },
    );
    expect(`${tc.stdout}${tc.stderr}`).toBe("");
    expect(tc.status).toBe(0);
  });

  test("a symlink planted at mcpx-globals.d.ts is replaced, and the file it pointed to is untouched", async () => {
    const dir = join(sb.dir, "planted");
    const victim = sb.write("victim.txt", "not yours\n");
    const script = sb.write("planted/s.ts", "export default () => 1\n");
    symlinkSync(victim, join(dir, "mcpx-globals.d.ts"));
    const r = await mcpx(sb, ["run", "--timeout", "30s", script]);
    expectExit(r, 0);
    expect(readFileSync(victim, "utf8")).toBe("not yours\n");
    expect(lstatSync(join(dir, "mcpx-globals.d.ts")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, "mcpx-globals.d.ts"), "utf8")).toContain("declare global");
  });
});

describe("a plugin's namespace is everywhere a configured server's is", () => {
  test("mcpx ls lists it with its manifest as the origin", async () => {
    const [text, json] = await Promise.all([mcpx(sb, ["ls"]), mcpx(sb, ["ls", "--json"])]);
    expectExit(text, 0);
    expect(text.stdout).toMatch(/^guard\t\d+ tools\t.*mcpx-plugin\.json$/m);
    expectExit(json, 0);
    const guard = (JSON.parse(json.stdout) as Array<{ server: string; origin: string }>).find((s) => s.server === "guard");
    expect(guard?.origin).toContain("mcpx-plugin.json");
  });

  test("mcpx types guard.echo prints its types", async () => {
    const r = await mcpx(sb, ["types", "guard.echo"]);
    expectExit(r, 0);
    expect(r.stdout).toContain("declare namespace guard {");
    expect(r.stdout).toContain("function echo(args: Args): Promise<Result>;");
    expect(r.stdout).toContain("function raw(args: Args)");
  });
});

describe("a server named like a global is reachable as tools[NAME], and a script that uses the global is told so", () => {
  const named = sandbox();
  writeConfig(named, ".mcpx.json", { mcpServers: { fetch: fakeServer(), log: fakeServer() } });

  test('fetch.echo(…) fails with an error naming the server and tools["fetch"], and tools["fetch"].echo works', async () => {
    const [used, viaTools] = await Promise.all([
      mcpx(named, ["exec", "--json", 'await fetch.echo({ message: "hi" })']),
      mcpx(named, ["exec", 'return await tools["fetch"].echo({ message: "hi" })']),
    ]);
    expectExit(used, 1);
    const message = String(JSON.parse(used.stdout).error.message);
    expect(message).toContain("fetch.echo is not a function");
    expect(message).toContain('server "fetch" is not the global fetch');
    expect(message).toContain('tools["fetch"].echo(…)');
    expectExit(viaTools, 0);
    expect(viaTools.stdout.trim()).toBe("hi");
  });

  test("log.echo(…), an mcpx global, says the same on stderr without --json", async () => {
    const r = await mcpx(named, ["exec", 'await log.echo({ message: "hi" })']);
    expectExit(r, 1);
    expect(r.stderr).toContain('server "log" is not the global log (log is an mcpx global): call its tools as tools["log"].echo(…)');
  });
});
