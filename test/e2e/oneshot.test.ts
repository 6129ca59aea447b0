// One-shot ergonomics: `mcpx call SERVER.TOOL key=value …` coerced and checked by the
// tool's input schema, ad-hoc servers (--stdio, --http-url) with no config, did-you-mean for unknown
// names, and the error prefix every failure shares.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { BUN, FAKE_SERVER, fakeServer, processesWith, sandbox } from "./harness.ts";
import { expectExit, httpFixture, leftoverProcesses, mcpx, writeConfig } from "./support.ts";
import { COMMAND_DESCRIPTIONS } from "../../cmd/commands.ts";
import { quote } from "shell-quote";
import { MCPX } from "./harness.ts";

const sb = sandbox();
const RECORD = join(sb.dir, "calls.jsonl");
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: RECORD }) } });

describe.concurrent("mcpx call key=value", () => {
  test("values are coerced by the input schema: numbers for add, a string stays a string for echo", async () => {
    const add = await mcpx(sb, ["call", "fake.add", "a=20", "b=22"]);
    expectExit(add, 0);
    expect(JSON.parse(add.stdout)).toEqual({ sum: 42 });
    const echo = await mcpx(sb, ["call", "fake.echo", "message=123"]);
    expectExit(echo, 0);
    expect(echo.stdout).toBe("123\n");
  });

  test("key:=JSON gives JSON, and an array key takes JSON text", async () => {
    const r = await mcpx(sb, ["call", "fake.nested", "mode=fast", 'target:={"id":7}', 'items=[{"name":"x","count":2}]']);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ mode: "fast", target: { id: 7 }, items: [{ name: "x", count: 2 }] });
  });

  test("a value the schema's type cannot take is exit 2 naming the key, and the server never sees the call", async () => {
    const r = await mcpx(sb, ["call", "fake.add", "a=twenty", "b=1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('"a" takes number');
    expect(recordedCalls(RECORD, "add").filter((c) => (c.args as { a?: unknown }).a === "twenty")).toEqual([]);
  });

  test("arguments the schema refuses are exit 2 in the schema's words, and the server never sees the call", async () => {
    const missing = await mcpx(sb, ["call", "fake.add", "a=1"]);
    expectExit(missing, 2);
    expect(missing.stderr).toContain('argument "b" is required (number)');
    const badEnum = await mcpx(sb, ["call", "fake.nested", "mode=medium", "target=x", "items:=[]"]);
    expectExit(badEnum, 2);
    expect(badEnum.stderr).toContain('argument "mode" must be equal to one of the allowed values: "fast", "slow"');
    const json = await mcpx(sb, ["call", "fake.add", '{"a": 1, "b": "2"}']);
    expectExit(json, 2);
    expect(json.stderr).toContain('argument "b" must be number');
    expect(recordedCalls(RECORD, "nested").filter((c) => (c.args as { mode?: unknown }).mode === "medium")).toEqual([]);
    expect(recordedCalls(RECORD, "add").filter((c) => (c.args as { b?: unknown }).b === "2" || (c.args as { b?: unknown }).b === undefined)).toEqual([]);
  });

  test("- still reads the arguments object from stdin", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", "-"], { stdin: '{"message":"from stdin"}' });
    expectExit(r, 0);
    expect(r.stdout).toBe("from stdin\n");
  });

  test("- or a JSON object mixed with key=value items is exit 2 saying what to give", async () => {
    const r = await mcpx(sb, ["call", "fake.echo", "-", "message=x"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("cannot be mixed with other arguments");
  });
});

// a directory with no config at all: the ad-hoc server is the only one
const bare = sandbox();
const STDIO = `${BUN} ${FAKE_SERVER}`;
let http: Awaited<ReturnType<typeof httpFixture>> | undefined;
let httpUrl = "";

beforeAll(async () => {
  // in a sandbox of its own: it is this file's, not mcpx's, and outlives the leftover check below
  http = await httpFixture(FAKE_SERVER, { ...sandbox().env, FAKE_MCP_HTTP_PORT: "0" });
  httpUrl = http.url;
});

afterAll(() => http?.stop());

describe.concurrent("ad-hoc servers with no config", () => {
  test("--stdio on call, ls, types and exec, named from the command (bun …/fake-server.ts → fake)", async () => {
    const [call, ls, types, exec] = await Promise.all([
      mcpx(bare, ["call", "--stdio", STDIO, "fake.echo", "message=hi"]),
      mcpx(bare, ["ls", "--stdio", STDIO]),
      mcpx(bare, ["types", "--stdio", STDIO, "fake.echo"]),
      mcpx(bare, ["exec", "--stdio", STDIO, 'console.log(await fake.echo({ message: "from exec" }))']),
    ]);
    expectExit(call, 0);
    expect(call.stdout).toBe("hi\n");
    expectExit(ls, 0);
    expect(ls.stdout).toMatch(/^fake\t\d+ tools\t--stdio ".*fake-server\.ts"\n$/);
    expectExit(types, 0);
    expect(types.stdout).toContain("echo");
    expectExit(exec, 0);
    expect(exec.stdout).toBe("from exec\n");
  });

  test("run takes --stdio too, and --name names the server", async () => {
    bare.write("adhoc.ts", 'export default async () => (await mine.echo({ message: "ran" }))');
    const r = await mcpx(bare, ["run", "--stdio", STDIO, "--name", "mine", "adhoc.ts"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("ran\n");
  });

  test("--http-url is named by its host and merged with the configured servers", async () => {
    const ls = await mcpx(sb, ["ls", "--http-url", httpUrl]);
    expectExit(ls, 0);
    expect(ls.stdout).toMatch(/^fake\t\d+ tools\t\S+\.mcpx\.json\n127-0-0-1\t\d+ tools\t--http-url http:\/\/127\.0\.0\.1:\d+\/mcp\n$/);
    const call = await mcpx(bare, ["call", "--http-url", httpUrl, "--name", "web", "web.add", "a=1", "b=2"]);
    expectExit(call, 0);
    expect(JSON.parse(call.stdout)).toEqual({ sum: 3 });
  });

  test("an ad-hoc name that a config already uses is exit 2 naming both and --name", async () => {
    const r = await mcpx(sb, ["ls", "--stdio", STDIO]);
    expectExit(r, 2);
    expect(r.stderr).toContain('"fake"');
    expect(r.stderr).toContain("--name");
  });

  test("shell syntax in --stdio and --stdio with --remote are exit 2 naming the flag", async () => {
    const pipe = await mcpx(bare, ["ls", "--stdio", `${STDIO} | cat`]);
    expectExit(pipe, 2);
    expect(pipe.stderr).toContain('"|" is shell syntax');
    const remote = await mcpx(bare, ["exec", "--remote", "--stdio", STDIO, "1"]);
    expectExit(remote, 2);
    expect(remote.stderr).toContain("--stdio does not travel with --remote");
  });
});

describe.concurrent("did-you-mean for unknown commands, servers and tools", () => {
  test.each([
    [["lss"], "ls"],
    [["call", "fak.echo", "message=x"], "fake"],
    [["call", "fake.ecoh", "message=x"], "echo"],
    [["ls", "fkae"], "fake"],
    [["types", "fakee.echo"], "fake"],
    [["types", "fake.ech"], "echo"],
    [["hooks", "explain", "fak.echo"], "fake"],
    [["hooks", "explain", "fake.ecoh"], "echo"],
  ])("mcpx %p suggests %p", async (args, near) => {
    const r = await mcpx(sb, args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`(did you mean ${near}?)`);
  });
});

describe.concurrent("help and errors", () => {
  test("bare mcpx prints the help on stderr, nothing on stdout, and exits 2", async () => {
    const r = await mcpx(bare, []);
    expectExit(r, 2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("USAGE mcpx");
  });

  test("a command's help shows its own flags first, the settings under SETTINGS, then EXAMPLES", async () => {
    const r = await mcpx(bare, ["call", "--help"]);
    expectExit(r, 0);
    const [options = -1, settings = -1, examples = -1] = ["OPTIONS", "SETTINGS", "EXAMPLES"].map((h) => r.stdout.indexOf(`\n${h}`));
    expect(options).toBeGreaterThan(0);
    expect(settings).toBeGreaterThan(options);
    expect(examples).toBeGreaterThan(settings);
    // a setting flag is listed under SETTINGS only; --stdio (not a setting) under OPTIONS
    expect(r.stdout.slice(options, settings)).not.toContain("--mcp-call-timeout");
    expect(r.stdout.slice(settings)).toContain("--mcp-call-timeout");
    expect(r.stdout.slice(options, settings)).toContain("--stdio");
    expect(r.stdout.slice(examples)).toContain("mcpx call everything.echo message=hi");
  });

  test("every command's help has examples", async () => {
    for (const name of Object.keys(COMMAND_DESCRIPTIONS)) {
      const r = await mcpx(bare, [name, "--help"]);
      expect(r.stdout).toContain(`\nEXAMPLES\n\n  mcpx ${name}`);
    }
  });

  test("an unknown flag on a command with no script does not say to put it after --; run and exec do", async () => {
    const ls = await mcpx(bare, ["ls", "--bogus"]);
    expectExit(ls, 2);
    expect(ls.stderr).not.toContain("after --");
    const exec = await mcpx(bare, ["exec", "--bogus", "1"]);
    expect(exec.stderr).toContain("To pass it to the script, put it after --");
  });

  test("mcpx run nonexist.ts names .mcpx/scripts/nonexist.ts, not .ts.ts", async () => {
    const r = await mcpx(bare, ["run", "nonexist.ts"]);
    expectExit(r, 2);
    expect(r.stderr).toContain(".mcpx/scripts/nonexist.ts from");
    expect(r.stderr).not.toContain(".ts.ts");
  });

  // the one prefix: "mcpx COMMAND: " once a command is named, "mcpx: " before one is; never twice,
  // never a stack, never a log-format line ("[error] …") for the error that ends the command
  test.each([
    [["nope"]],
    [["--bogus"]],
    [["ls", "--bogus"]],
    [["ls", "nosuch"]],
    [["run", "nonexist.ts"]],
    [["run"]],
    [["exec", "a", "b"]],
    [["exec", "--output", "xml", "1"]],
    [["call", "nosuch.tool", "{}"]],
    [["call", "fake.nosuch"]],
    [["call", "fake.add", "a=x"]],
    [["call", "fake.fail", "message=boom"]],
    [["call", "fake"]],
    [["types"]],
    [["types", "nosuch"]],
    [["types", "fake.nosuch"]],
    [["ls", "--stdio", "/nonexistent/prog", "prog"]],
    [["settings", "get", "nosuch"]],
    [["settings"]],
    [["hooks", "explain", "fake.nosuch"]],
    [["hooks", "test"]],
    [["serve", "x"]],
    [["daemon", "x"]],
  ])("mcpx %p fails with one error line in the one prefix style", async (args) => {
    const r = await mcpx(sb, args);
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trimEnd().split("\n");
    const command = args[0]!.startsWith("-") || !(args[0]! in COMMAND_DESCRIPTIONS) ? "" : ` ${args[0]}`;
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^mcpx${command}: \\S`));
    expect(r.stderr).not.toMatch(/mcpx( [a-z]+)?: mcpx/);
    expect(r.stderr).not.toContain("[error]");
    expect(r.stderr).not.toContain("    at ");
  });
});

/** mcpx under a pseudo-terminal (util-linux `script`): what a user at a terminal sees, stdout and stderr as one */
async function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn(["script", "-qfec", quote([MCPX, ...args]), "/dev/null"], {
    cwd: bare.dir,
    env: { ...bare.env, TERM: "xterm", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return text;
}

describe.concurrent("progress on a terminal, nothing extra on a pipe", () => {
  // the server takes 1.5 s to answer initialize, over STATUS_DELAY_MS (400 ms): a start that slow
  // shows the line; a regression that drew it on a pipe would put escape codes into the pipe's stderr
  const slow = { FAKE_MCP_START_DELAY: "1500" };

  test("a slow server start shows a status line naming the server on a terminal", async () => {
    const seen = await onTerminal(["call", "--stdio", STDIO, "fake.echo", "message=hi"], slow);
    expect(seen).toContain("starting fake (");
    expect(seen).toContain("\r\x1b[K");
    expect(seen.trimEnd().endsWith("hi")).toBe(true);
  });

  test("the same on a pipe: stdout is the result and stderr is empty", async () => {
    const r = await mcpx(bare, ["call", "--stdio", STDIO, "fake.echo", "message=hi"], { env: slow });
    expectExit(r, 0);
    expect(r.stdout).toBe("hi\n");
    expect(r.stderr).toBe("");
  });

  test("a tool's notifications/progress show on a terminal and nothing shows on a pipe", async () => {
    const env = { FAKE_MCP_PROGRESS_TOOL: "1" };
    const seen = await onTerminal(["call", "--stdio", STDIO, "fake.progress", "steps=3", "ms=500"], env);
    expect(seen).toContain("fake.progress: ");
    expect(seen).toContain("of 3");
    const r = await mcpx(bare, ["call", "--stdio", STDIO, "fake.progress", "steps=3", "ms=200"], { env });
    expectExit(r, 0);
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).toBe("");
  });

  test("a server that fails to start has its own stderr in the error", async () => {
    const r = await mcpx(bare, ["call", "--name", "bad", "--stdio", `${BUN} -e 'console.error("boom: API_KEY is not set"); process.exit(3)'`, "bad.x"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("Its stderr ended with:\n  boom: API_KEY is not set\n");
  });
});

test("the answer is printed as it arrives, not after the server has been ended", async () => {
  // a server that outlives its stdin is ended with SIGTERM after a grace of a second: the answer
  // must be on stdout while mcpx is still waiting for it to go
  const linger = sandbox();
  writeConfig(linger, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_IGNORE_EOF: "1" }) } });
  const proc = Bun.spawn([MCPX, "call", "fake.echo", '{"message":"early"}'], { cwd: linger.dir, env: linger.env, stdout: "pipe", stderr: "pipe" });
  let text = "";
  for await (const chunk of proc.stdout) {
    text += new TextDecoder().decode(chunk);
    if (text.endsWith("\n")) break;
  }
  expect(text).toBe("early\n");
  // the server, which mcpx ends only after that grace, is still there when the answer is
  const server = processesWith(linger.dir).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(FAKE_SERVER));
  expect(server.length).toBe(1);
  expect(await proc.exited).toBe(0);
  expect(await leftoverProcesses(linger.dir)).toEqual([]);
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
  expect(await leftoverProcesses(bare.dir)).toEqual([]);
});
