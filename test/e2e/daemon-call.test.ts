// `mcpx call --remote`: the arguments are read on the caller's side, the call runs through the
// daemon's gate, and the caller prints exactly what a local `mcpx call` prints, with the same exit
// code: a result, a tool error (exit 1), an unknown tool with its did-you-mean, arguments the schema
// refuses (exit 2), a call hook's refusal and advice, and --json.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeServer, sandbox, type Result } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  hooks: [
    { name: "no-delete", on: "call", phase: "before", when: { tool: "delete_item" }, run: say({ refuse: "deleting is not allowed here" }), effect: "refuse" },
    { name: "sum-advice", on: "call", phase: "onSuccess", when: { tool: "add" }, run: say({ advise: "sums are cheap" }) },
  ],
});

let d: Daemon;
afterAll(stopDaemons);
beforeAll(async () => {
  d = await startDaemon(sb);
});

/** the same call locally and with --remote */
async function both(args: string[], opts: { stdin?: string } = {}): Promise<{ local: Result; remote: Result }> {
  const [local, remote] = await Promise.all([mcpx(sb, ["call", ...args], opts), mcpx(sb, ["call", "--remote", ...args], opts)]);
  return { local, remote };
}

function expectSame({ local, remote }: { local: Result; remote: Result }): void {
  expect({ code: remote.code, stdout: remote.stdout, stderr: remote.stderr }).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
}

describe("mcpx call --remote prints what a local call prints", () => {
  test("a result from a JSON object and from key=value items coerced by the tool's schema", async () => {
    const json = await both(["fake.echo", '{"message": "hi"}']);
    expect(json.local.code).toBe(0);
    expect(json.local.stdout).toContain("hi");
    expectSame(json);
    const items = await both(["fake.add", "a=20", "b=22"]);
    expect(items.local.stdout).toContain("42");
    expectSame(items);
  });

  test("--json prints the raw result", async () => {
    const r = await both(["--json", "fake.echo", "message=raw"]);
    expect(r.local.code).toBe(0);
    expectSame(r);
  });

  test("a tool error exits 1 with the tool's message, with and without --json", async () => {
    const r = await both(["fake.fail", "{}"]);
    expect(r.local.code).toBe(1);
    expectSame(r);
    expectSame(await both(["--json", "fake.fail", "{}"]));
  });

  test("an unknown tool exits 1 with the did-you-mean; a hook tool is as unknown", async () => {
    const r = await both(["fake.ecko", "{}"]);
    expect(r.local.code).toBe(1);
    expect(r.local.stderr).toContain("echo");
    expectSame(r);
    expectSame(await both(["fake._secret", "{}"]));
  });

  test("arguments the schema refuses exit 2 before the server is called", async () => {
    const r = await both(["fake.add", "a=twenty", "b=1"]);
    expect(r.local.code).toBe(2);
    expectSame(r);
    expectSame(await both(["fake.add", "a=1"]));
  });

  test("the daemon's call hooks gate the call: a refusal exits 1, advice is shown on stderr", async () => {
    const refused = await both(["fake.delete_item", '{"id": "1"}']);
    expect(refused.local.code).toBe(1);
    expect(refused.local.stderr).toContain("deleting is not allowed here");
    expectSame(refused);
    const advised = await both(["fake.add", "a=1", "b=2"]);
    expect(advised.local.stderr).toContain("sums are cheap");
    expectSame(advised);
  });

  test("the arguments on stdin travel as read", async () => {
    expectSame(await both(["fake.echo", "-"], { stdin: '{"message": "from stdin"}' }));
  });
});

describe("POST /v1/call", () => {
  test("a body that is not {server, tool, args} is a 400 naming the key and the accepted keys", async () => {
    const post = (body: unknown) => d.fetch("/v1/call", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const res = await post({ server: "fake", tool: "echo", argz: {} });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("BAD_REQUEST");
    expect(body.error.message).toContain(`argz: unknown key "argz": accepted keys are server, tool, args, items`);
    expect((await post({ server: "fake", tool: "echo", args: {}, items: [] })).status).toBe(400);
  });

  test("answers the call's answer and the hook notes in order", async () => {
    const res = await d.fetch("/v1/call", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ server: "fake", tool: "add", items: ["a=1", "b=2"] }),
    });
    const body = (await res.json()) as { notes: Array<{ type: string; advice?: string[] }>; answer: { ok: boolean } };
    expect(body.answer.ok).toBe(true);
    expect(body.notes.flatMap((n) => n.advice ?? [])).toContain("sums are cheap");
  });
});

describe("the caller's limits with mcpx call --remote", () => {
  test("its mcp.callTimeout travels: a slow call ends on it remotely as locally", async () => {
    // 3s: the local door also starts the server within it (lib/mcp/pool.ts), which takes a while when other tests run
    const r = await both(["--mcp-call-timeout", "3s", "fake.slow", "ms=30000"]);
    expect(r.local.code).toBe(1);
    expect(r.local.stderr).toContain("within 3000ms (mcp.callTimeout)");
    expectSame(r);
  });

  test("a flag for a hook policy setting is exit 2 naming it, and a body that sends one is a 400", async () => {
    const r = await mcpx(sb, ["call", "--remote", "--hooks-autonomy", "off", "fake.delete_item", '{"id": "1"}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--hooks-autonomy does not travel with mcpx call --remote");
    const res = await d.fetch("/v1/call", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ server: "fake", tool: "delete_item", args: { id: "1" }, settings: { "hooks.autonomy": "off" } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("settings: only mcp.callTimeout and hooks.retryBudget travel");
  });
});

describe("the remote setting makes the daemon the default", () => {
  test("MCPX_REMOTE=1: call, ls, types and exec go to the daemon, and with none there (and no start on demand) exit 2 rather than run here", async () => {
    const env = { MCPX_REMOTE: "1" };
    const gone = { ...env, MCPX_DAEMON_ADDRESS: `${sb.dir}/nobody.sock`, MCPX_DAEMON_AUTO_START: "0" };
    for (const argv of [["call", "fake.echo", "message=hi"], ["ls"], ["types", "fake.echo"], ["exec", "1"]]) {
      const [viaSetting, viaFlag] = await Promise.all([mcpx(sb, argv, { env }), mcpx(sb, [argv[0]!, "--remote", ...argv.slice(1)])]);
      expect({ code: viaSetting.code, stdout: viaSetting.stdout, stderr: viaSetting.stderr }).toEqual({
        code: viaFlag.code,
        stdout: viaFlag.stdout,
        stderr: viaFlag.stderr,
      });
      const none = await mcpx(sb, argv, { env: gone });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(`no daemon at ${sb.dir}/nobody.sock: start one with \`mcpx daemon start\``);
    }
  });

  test('"remote": true in a config does the same, and an ad-hoc server is then refused', async () => {
    const cfg = `${sb.dir}/remote.json`;
    writeConfig(sb, "remote.json", { remote: true, daemon: { address: `${sb.dir}/nobody.sock`, autoStart: false } });
    const r = await mcpx(sb, ["call", "--config", cfg, "fake.echo", "message=hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("start one with `mcpx daemon start`");
    const adHoc = await mcpx(sb, ["ls", "--stdio", "true"], { env: { MCPX_REMOTE: "1" } });
    expect(adHoc.code).toBe(2);
    expect(adHoc.stderr).toContain("--stdio does not travel with --remote");
  });
});

describe("what cannot travel", () => {
  test("an ad-hoc server is refused with exit 2", async () => {
    const r = await mcpx(sb, ["call", "--remote", "--stdio", "true", "x.y", "{}"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--stdio does not travel with --remote");
  });

  test("with no daemon and daemon.autoStart off, exit 2 naming the address and how to start one", async () => {
    const r = await mcpx(sb, ["call", "--remote", "--daemon-auto-start=false", "fake.echo", "{}"], { env: { MCPX_DAEMON_ADDRESS: `${sb.dir}/nobody.sock` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("start one with `mcpx daemon start`");
  });
});
