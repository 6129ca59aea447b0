// `mcpx resource --remote` and `mcpx prompt --remote`: the daemon lists, reads and gets through its
// own gate (POST /v1/resource, /v1/prompt), and the caller prints exactly what the local command
// prints, with the same exit code: lists, a text read, a blob written with -o, a prompt got with
// arguments, --json, hook advice, a refusing hook, and each error. Then the route as a hostile
// caller with the daemon's socket sees it: a read goes through the gate or not at all, and a body's
// hooks may only restrict.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { recordedReads } from "../../fixtures/servers/record.ts";
import { everythingServer, fakeServer, sandbox, type Result } from "./harness.ts";
import { recordPath, say } from "./hooks-support.ts";
import { mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
const STATIC = "demo://resource/static/document/architecture.md";
writeConfig(sb, ".mcpx.json", {
  mcpServers: { everything: everythingServer(), fake: fakeServer({ FAKE_MCP_FEATURES: "1" }) },
  hooks: [
    { name: "no-notes", on: "resource.read", phase: "before", when: { uri: "fake://note" }, run: say({ refuse: "notes are private" }), effect: "refuse" },
    { name: "no-greeting", on: "prompt.get", phase: "before", when: { server: "fake" }, run: say({ refuse: "no greetings today" }), effect: "refuse" },
    { name: "read-advice", on: "resource.read", phase: "onSuccess", when: { uri: STATIC }, run: say({ advise: "architecture docs age fast" }) },
  ],
});
// every read and get that reaches the fake server under the daemon
const daemonRecord = recordPath(sb, "daemon");

let d: Daemon;
afterAll(stopDaemons);
beforeAll(async () => {
  d = await startDaemon(sb, [], { env: { FAKE_MCP_RECORD: daemonRecord } });
});

/** the same command locally and with --remote */
async function both(argv: string[], opts: { env?: Record<string, string> } = {}): Promise<{ local: Result; remote: Result }> {
  const [local, remote] = await Promise.all([mcpx(sb, argv, opts), mcpx(sb, [argv[0]!, "--remote", ...argv.slice(1)], opts)]);
  return { local, remote };
}

function expectSame({ local, remote }: { local: Result; remote: Result }): void {
  expect({ code: remote.code, stdout: remote.stdout, stderr: remote.stderr }).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
}

/** POST a body to a route on the daemon's socket: the status and the JSON answer */
async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await d.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe("mcpx resource --remote prints what a local mcpx resource prints", () => {
  test("the list of resources and templates, as rows and as --json", async () => {
    const rows = await both(["resource", "everything"]);
    expect(rows.local.code).toBe(0);
    expect(rows.local.stdout).toContain(STATIC);
    expectSame(rows);
    const json = await both(["resource", "everything", "--json"]);
    expect(JSON.parse(json.local.stdout).resourceTemplates.length).toBe(2);
    expectSame(json);
  });

  test("a text read, with the daemon's onSuccess advice on stderr", async () => {
    const r = await both(["resource", "everything", STATIC]);
    expect(r.local.code).toBe(0);
    expect(r.local.stdout).toContain("Architecture");
    expect(r.local.stderr).toContain("architecture docs age fast");
    expectSame(r);
  });

  test("a blob written with -o: the same bytes in the file and the same line on stdout", async () => {
    const file = join(sb.dir, "blob.bin");
    const local = await mcpx(sb, ["resource", "fake", "fake://blob", "-o", file]);
    expect(local.code).toBe(0);
    const localBytes = [...readFileSync(file)];
    expect(localBytes).toEqual([0, 1, 2, 255]);
    rmSync(file);
    const remote = await mcpx(sb, ["resource", "--remote", "fake", "fake://blob", "-o", file]);
    expectSame({ local, remote });
    expect([...readFileSync(file)]).toEqual(localBytes);
  });

  test("everything's dynamic blob written with -o, and the same read as --json base64 (its creation time aside)", async () => {
    const uri = "demo://resource/dynamic/blob/1";
    const file = join(sb.dir, "everything-blob.bin");
    // the server stamps each blob with the time it made it: the rest must be the same
    const unstamped = (bytes: Buffer) => bytes.toString("utf8").replace(/created at .*$/, "created at T");
    const local = await mcpx(sb, ["resource", "everything", uri, "-o", file]);
    expect(local.code).toBe(0);
    const localText = unstamped(readFileSync(file));
    expect(localText).toBe("Resource 1: This is a base64 blob created at T");
    rmSync(file);
    const remote = await mcpx(sb, ["resource", "--remote", "everything", uri, "-o", file]);
    expectSame({ local, remote });
    expect(unstamped(readFileSync(file))).toBe(localText);
    const json = await both(["resource", "everything", uri, "--json"]);
    const shown = (r: Result) => {
      const j = JSON.parse(r.stdout) as { contents: Array<{ blob: string }> };
      for (const c of j.contents) c.blob = unstamped(Buffer.from(c.blob, "base64"));
      return { code: r.code, json: j, stderr: r.stderr };
    };
    expect(shown(json.local).json.contents[0]!.blob).toBe(localText);
    expect(shown(json.remote)).toEqual(shown(json.local));
  });

  test("a blob without -o is never dumped (exit 2), and -o on a text resource is refused (exit 2), remotely as locally", async () => {
    const dumped = await both(["resource", "fake", "fake://blob"]);
    expect(dumped.local.code).toBe(2);
    expectSame(dumped);
    const text = await both(["resource", "fake", "fake://items/7", "-o", join(sb.dir, "never.txt")]);
    expect(text.local.code).toBe(2);
    expectSame(text);
  });

  test("an unknown server exits 2 with its did-you-mean; an unknown URI is the server's error, exit 1", async () => {
    const server = await both(["resource", "everythin"]);
    expect(server.local.code).toBe(2);
    expect(server.local.stderr).toContain("did you mean everything?");
    expectSame(server);
    const uri = await both(["resource", "everything", "demo://no/such/thing"]);
    expect(uri.local.code).toBe(1);
    expectSame(uri);
  });

  test("a resource.read hook in the daemon's config refuses the remote read with the local exit code, and the server is never asked", async () => {
    const r = await both(["resource", "fake", "fake://note"]);
    expect(r.local.code).toBe(1);
    expect(r.local.stderr).toContain("refused by hook no-notes: notes are private");
    expectSame(r);
    expect(recordedReads(daemonRecord).filter((e) => e.uri === "fake://note")).toEqual([]);
  });

  test("a caller whose own config has no such hook is refused all the same: the daemon's hooks are its own", async () => {
    const bare = writeConfig(sb, "bare.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_FEATURES: "1" }) } });
    const r = await mcpx(sb, ["resource", "--remote", "--config", bare, "fake", "fake://note"], { env: { MCPX_DAEMON_ADDRESS: d.address } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refused by hook no-notes: notes are private");
    const local = await mcpx(sb, ["resource", "--config", bare, "fake", "fake://note"]);
    expect(local.code).toBe(0);
    expect(local.stdout).toBe("a note from fake\n");
  });

  test("the caller's own resource.read guard travels: a read the daemon allows is refused as it is locally", async () => {
    const hooks = [
      { name: "no-items", on: "resource.read", phase: "before", when: { uri: "fake://items/*" }, run: say({ refuse: "items are off" }), effect: "refuse" },
    ];
    const r = await both(["resource", "fake", "fake://items/3"], { env: { MCPX_HOOKS: JSON.stringify(hooks) } });
    expect(r.local.code).toBe(1);
    expect(r.local.stderr).toContain("refused by hook no-items: items are off");
    expectSame(r);
  });
});

describe("mcpx prompt --remote prints what a local mcpx prompt prints", () => {
  test("the list of prompts, as rows and as --json", async () => {
    const rows = await both(["prompt", "everything"]);
    expect(rows.local.code).toBe(0);
    expect(rows.local.stdout).toContain("args-prompt");
    expectSame(rows);
    expectSame(await both(["prompt", "everything", "--json"]));
  });

  test("a prompt got with key=value arguments, as messages and as --json", async () => {
    const r = await both(["prompt", "everything", "args-prompt", "city=Paris", "state=Texas"]);
    expect(r.local.code).toBe(0);
    expect(r.local.stdout).toContain("Paris");
    expectSame(r);
    expectSame(await both(["prompt", "everything", "args-prompt", "city=Oslo", "--json"]));
  });

  test("a missing required argument and an unknown one exit 2 naming them; an unknown prompt is the server's error, exit 1", async () => {
    const missing = await both(["prompt", "everything", "args-prompt", "state=Texas"]);
    expect(missing.local.code).toBe(2);
    expect(missing.local.stderr).toContain("missing required argument city");
    expectSame(missing);
    const unknown = await both(["prompt", "everything", "args-prompt", "citty=Paris"]);
    expect(unknown.local.code).toBe(2);
    expectSame(unknown);
    const prompt = await both(["prompt", "everything", "no-such-prompt"]);
    expect(prompt.local.code).toBe(1);
    expectSame(prompt);
    const server = await both(["prompt", "evrything"]);
    expect(server.local.code).toBe(2);
    expectSame(server);
  });

  test("a prompt.get hook in the daemon's config refuses the remote get with the local exit code", async () => {
    const r = await both(["prompt", "fake", "greet", "name=Ada"]);
    expect(r.local.code).toBe(1);
    expect(r.local.stderr).toContain("refused by hook no-greeting: no greetings today");
    expectSame(r);
    expect(recordedReads(daemonRecord).filter((e) => e.method === "prompts/get")).toEqual([]);
  });
});

describe("the remote setting", () => {
  test("MCPX_REMOTE=1 sends resource and prompt to the daemon as --remote does; with none there (no start on demand) both exit 2", async () => {
    const gone = { MCPX_REMOTE: "1", MCPX_DAEMON_ADDRESS: `${sb.dir}/nobody.sock`, MCPX_DAEMON_AUTO_START: "0" };
    for (const argv of [
      ["resource", "fake", "fake://items/5"],
      ["prompt", "everything", "args-prompt", "city=Rome"],
    ]) {
      const [viaSetting, viaFlag] = await Promise.all([mcpx(sb, argv, { env: { MCPX_REMOTE: "1" } }), mcpx(sb, [argv[0]!, "--remote", ...argv.slice(1)])]);
      expect(viaFlag.code).toBe(0);
      expect({ code: viaSetting.code, stdout: viaSetting.stdout, stderr: viaSetting.stderr }).toEqual({
        code: viaFlag.code,
        stdout: viaFlag.stdout,
        stderr: viaFlag.stderr,
      });
      const none = await mcpx(sb, argv, { env: gone });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(`no daemon at ${sb.dir}/nobody.sock: start one with \`mcpx daemon start\``);
      expect(none.stdout).toBe("");
    }
  });

  test("an ad-hoc server does not travel: exit 2 naming the flag", async () => {
    const r = await mcpx(sb, ["resource", "--remote", "--stdio", "true", "true"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--stdio does not travel with --remote");
  });
});

describe("POST /v1/resource and /v1/prompt from a hostile caller", () => {
  test("a read the daemon's hook refuses stays refused whatever hooks the body brings", async () => {
    const loosen = [
      { name: "allow", on: "resource.read", phase: "before", run: say({ apply: {} }), effect: "apply" },
      { name: "recover", on: "resource.read", phase: "onError", run: say({ apply: { contents: [{ uri: "fake://note", text: "leaked" }] } }), effect: "apply" },
    ];
    const r = await post("/v1/resource", { server: "fake", uri: "fake://note", hooks: loosen });
    expect(r.status).toBe(200);
    expect(r.json.read.ok).toBe(false);
    expect(r.json.read.error.message).toContain("refused by hook no-notes");
    expect(JSON.stringify(r.json)).not.toContain("leaked");
    expect(recordedReads(daemonRecord).filter((e) => e.uri === "fake://note")).toEqual([]);
  });

  test("a body hook may not recover a failed read: its apply is capped at refuse", async () => {
    const recover = [
      { name: "recover", on: "resource.read", phase: "onError", run: say({ apply: { contents: [{ uri: "x", text: "invented" }] } }), effect: "apply" },
    ];
    const r = await post("/v1/resource", { server: "everything", uri: "demo://no/such/thing", hooks: recover });
    expect(r.status).toBe(200);
    expect(r.json.read.ok).toBe(false);
    expect(JSON.stringify(r.json)).not.toContain("invented");
  });

  test("a body hook on another point, or an observe hook, is a 400 naming the points it may be on", async () => {
    for (const hook of [
      { on: "server.start", phase: "before", run: say({}) },
      { on: "call", phase: "before", run: say({}) },
      { on: "resource.read", phase: "observe", run: say({}) },
    ]) {
      const r = await post("/v1/resource", { server: "fake", uri: "fake://items/1", hooks: [hook] });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain('a per-run hook must be on "resource.read"');
    }
    const p = await post("/v1/prompt", {
      server: "fake",
      name: "greet",
      args: { name: "Ada" },
      hooks: [{ on: "resource.read", phase: "before", run: say({}) }],
    });
    expect(p.status).toBe(400);
    expect(p.json.error.message).toContain('a per-run hook must be on "prompt.get"');
  });

  test("a body that is not a request is a 400 naming the key and what is accepted", async () => {
    const extra = await post("/v1/resource", { server: "fake", uri: "fake://items/1", gate: "off" });
    expect(extra.status).toBe(400);
    expect(extra.json.error.message).toContain("unknown key");
    expect(extra.json.error.message).toContain("accepted keys are server, uri, hooks, settings");
    const noServer = await post("/v1/prompt", { name: "greet" });
    expect(noServer.status).toBe(400);
    expect(noServer.json.error.message).toContain("server");
    const notStrings = await post("/v1/prompt", { server: "fake", name: "greet", args: { name: 1 } });
    expect(notStrings.status).toBe(400);
    expect(notStrings.json.error.message).toContain("args.name");
    const argsAlone = await post("/v1/prompt", { server: "fake", args: { name: "Ada" } });
    expect(argsAlone.status).toBe(400);
    expect(argsAlone.json.error.message).toContain("args but no name");
    const notANumber = await post("/v1/resource", { server: "fake", settings: { "hooks.retryBudget": "many" } });
    expect(notANumber.status).toBe(400);
    expect(notANumber.json.error.message).toContain("settings.hooks.retryBudget");
  });

  test("a body cannot lower the hook policy the daemon's own hooks run under: hooks.autonomy, autonomy.max, hooks.timeout are 400s", async () => {
    for (const settings of [{ "hooks.autonomy": "off" }, { "autonomy.max": "advise" }, { "hooks.timeout": "1ms" }, { "hooks.mcpTimeout": "1ms" }]) {
      const r = await post("/v1/resource", { server: "fake", uri: "fake://note", settings });
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain("settings: only mcp.callTimeout and hooks.retryBudget travel");
    }
    const p = await post("/v1/prompt", { server: "fake", name: "greet", args: { name: "Ada" }, settings: { "hooks.autonomy": "off" } });
    expect(p.status).toBe(400);
    expect(recordedReads(daemonRecord).filter((e) => e.uri === "fake://note" || e.method === "prompts/get")).toEqual([]);
  });

  test("the caller's flag for such a setting is exit 2 naming it; from its environment it stays home, and the daemon still refuses", async () => {
    const flag = await mcpx(sb, ["resource", "--remote", "--hooks-autonomy", "off", "fake", "fake://note"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--hooks-autonomy does not travel with mcpx resource --remote: hooks.autonomy binds every hook");
    const env = await mcpx(sb, ["resource", "--remote", "fake", "fake://note"], { env: { MCPX_HOOKS_AUTONOMY: "off" } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain("refused by hook no-notes");
  });

  test("an unknown server is answered as {thrown} with the usage code, and nothing is started", async () => {
    const r = await post("/v1/prompt", { server: "nope" });
    expect(r.status).toBe(200);
    expect(r.json.thrown).toMatchObject({ code: "USAGE" });
    expect(r.json.thrown.message).toContain('unknown server "nope"');
  });
});
