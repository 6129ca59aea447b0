// `mcpx run --remote` and `mcpx exec --remote`: resolved on the caller's side, run by the daemon,
// rendered by the caller exactly as a local run — the same stdout, stderr, envelope, frames and exit
// code, for the five phases on both paths, config hooks, args, exports, env, timeouts and refusals.
// Plus what a client sees when there is no daemon, and how a second daemon treats the socket.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCPX, fakeServer, sandbox, type Result } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { expectExit, leftoverProcesses, markersIn, mcpx, parseFrames, processesAppear, uniqueMarker, writeConfig } from "./support.ts";
import { defaultSocket, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  // the daemon runs in this directory too, so it has this hook in force: a remote run must not run it twice
  hooks: [{ name: "config-advice", on: "script", phase: "onSuccess", run: say({ advise: "from the shared config" }) }],
});
sb.write(
  "report.ts",
  [
    'const greeting = await fake.echo({ message: "hello " + process.env.WHO });',
    "console.log(greeting);",
    "export default (args: string[]) => ({ args, cwd: process.cwd() });",
    "export function shout(a: string, b: string) { return `${a}!${b}!`; }",
    "",
  ].join("\n"),
);
sb.write(".mcpx/scripts/named.ts", 'export default () => "named " + script.name;\n');
sb.write("sub/dir/.keep", "");
let d: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  d = await startDaemon(sb);
});

const PHASES = [
  "--before",
  'console.error("[before]")',
  "--prefix",
  'console.error("[prefix]")',
  "--on-success",
  'console.error("[onSuccess]")',
  "--on-error",
  'console.error("[onError] " + result.error.message)',
  "--suffix",
  'console.error("[suffix]")',
];

/** the same command locally and with --remote (inserted right after the subcommand) */
async function both(argv: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ local: Result; remote: Result }> {
  const [cmd, ...rest] = argv;
  const [local, remote] = await Promise.all([mcpx(sb, argv, opts), mcpx(sb, [cmd!, "--remote", ...rest], opts)]);
  return { local, remote };
}

function expectSame({ local, remote }: { local: Result; remote: Result }): void {
  expect({ code: remote.code, stdout: remote.stdout, stderr: remote.stderr }).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
}

/** what differs between any two runs, whatever door: ids and timings */
function normalise(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (k, v) => (k === "runId" || k === "durationMs" ? "…" : v));
}

/** adjacent stdout (or stderr) frames as one: how a pipe's text is cut into reads differs from run to run, on any door */
function joinChunks(frames: Array<{ type: string; [k: string]: unknown }>): Array<{ type: string; [k: string]: unknown }> {
  const out: typeof frames = [];
  for (const f of frames) {
    const prev = out.at(-1);
    if (prev && (f.type === "stdout" || f.type === "stderr") && prev.type === f.type)
      out[out.length - 1] = { ...prev, data: String(prev.data) + String(f.data) };
    else out.push(f);
  }
  return out;
}

describe.concurrent("a remote run prints exactly what the local run prints", () => {
  test("exec --remote with --before, --prefix, --on-success, --on-error and --suffix runs all five phases", async () => {
    const r = await both(["exec", ...PHASES, 'console.log("[body]")']);
    expectSame(r);
    expectExit(r.remote, 0);
    expect(r.remote.stdout).toBe("[body]\n");
    expect(markersIn(r.remote.stderr, ["[before]", "[prefix]", "[onSuccess]", "[suffix]"])).toEqual(["[before]", "[prefix]", "[onSuccess]", "[suffix]"]);
  });

  test("exec --remote whose snippet throws runs before, prefix, onError and suffix, and fails like the local run", async () => {
    const r = await both(["exec", ...PHASES, 'console.log("[body]"); throw new Error("snippet went wrong")']);
    expectSame(r);
    expectExit(r.remote, 1);
    expect(markersIn(r.remote.stderr, ["[before]", "[prefix]", "[onSuccess]", "[onError] snippet went wrong", "[suffix]"])).toEqual([
      "[before]",
      "[prefix]",
      "[onError] snippet went wrong",
      "[suffix]",
    ]);
    expect(r.remote.stderr).toContain("Error: snippet went wrong");
  });

  test("run --remote of a file with args, --env and a call through the daemon's pool", async () => {
    const r = await both(["run", "--env", "WHO=remote-or-not", "report.ts", "a", "b"]);
    expectSame(r);
    expectExit(r.remote, 0);
    expect(r.remote.stdout).toContain("hello remote-or-not\n");
    expect(JSON.parse(r.remote.stdout.slice(r.remote.stdout.indexOf("{")))).toEqual({ args: ["a", "b"], cwd: sb.dir });
  });

  test("run --remote with --export spreads the args into the named export", async () => {
    const r = await both(["run", "--export", "shout", "--env", "WHO=x", "report.ts", "--", "p", "q"]);
    expectSame(r);
    expect(r.remote.stdout).toEndWith("p!q!\n");
  });

  test("run --remote NAME finds the named script on the caller's side, from a subdirectory", async () => {
    const r = await both(["run", "named"], { cwd: join(sb.dir, "sub/dir") });
    expectSame(r);
    expect(r.remote.stdout).toBe("named named\n");
  });

  test("the script runs in the caller's working directory", async () => {
    const r = await both(["exec", "console.log(process.cwd())"], { cwd: join(sb.dir, "sub") });
    expectSame(r);
    expect(r.remote.stdout).toBe(join(sb.dir, "sub") + "\n");
  });

  test("--json gives the same envelope, ids and timings aside", async () => {
    const r = await both(["exec", "--json", "--on-error", 'console.log("[onError]")', 'await fake.echo({ message: "m" }); throw new Error("in json")']);
    expect(r.remote.code).toBe(r.local.code);
    expect(normalise(JSON.parse(r.remote.stdout))).toEqual(normalise(JSON.parse(r.local.stdout)));
    expect(JSON.parse(r.remote.stdout)).toMatchObject({ ok: false, exitCode: 1, stdout: "[onError]\n", error: { message: "in json" } });
  });

  test("--output stream gives the same frames in the same order (stdout chunking aside)", async () => {
    const r = await both([
      "exec",
      "--output",
      "stream",
      "--suffix",
      'console.log("[suffix]")',
      'log("l"); emit(1); console.log(await fake.echo({ message: "s" }))',
    ]);
    expect(r.remote.code).toBe(r.local.code);
    expect(normalise(joinChunks(parseFrames(r.remote.stdout)))).toEqual(normalise(joinChunks(parseFrames(r.local.stdout))));
  });

  test("a script hook from the shared config advises once, not once per side", async () => {
    const r = await both(["exec", "console.log(1)"]);
    expectSame(r);
    expect(r.remote.stderr.match(/from the shared config/g)).toHaveLength(1);
  });

  test("a script hook only the caller has (--hooks) goes along and runs on the daemon", async () => {
    const hooks = JSON.stringify([null, { name: "caller-only", on: "script", phase: "before", run: say({ advise: "only the caller has me" }) }]);
    const r = await both(["exec", "--hooks", hooks, "console.log(2)"]);
    expectSame(r);
    expect(r.remote.stderr).toContain("only the caller has me");
  });

  test("a script.before refusal exits 77 on both", async () => {
    const hooks = JSON.stringify([{ name: "no", on: "script", phase: "before", run: say({ refuse: "not today" }), effect: "refuse" }]);
    const r = await both(["exec", "--hooks", hooks, "console.log(3)"]);
    expectSame(r);
    expectExit(r.remote, 77);
    expect(r.remote.stderr).toContain("not today");
  });

  test("--timeout ends the run with exit 124 on both", async () => {
    const r = await both(["exec", "--timeout", "700ms", 'console.log("started"); await new Promise(() => setInterval(() => {}, 1000))']);
    expectSame(r);
    expectExit(r.remote, 124);
  });
});

describe("the client and the socket", () => {
  test("the daemon's socket file is mode 0600", () => {
    expect(statSync(defaultSocket(sb)).mode & 0o777).toBe(0o600);
  });

  test("without XDG_RUNTIME_DIR the default socket is in the state directory (0600), and --remote finds it there", async () => {
    const other = sandbox();
    const noRuntimeDir = { XDG_RUNTIME_DIR: "" };
    const d2 = await startDaemon(other, [], { env: noRuntimeDir });
    const sock = join(other.env.XDG_STATE_HOME!, "mcpx", "daemon.sock");
    expect(d2.address).toBe(sock);
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    const r = await mcpx(other, ["exec", "--remote", "console.log(6 * 7)"], { env: noRuntimeDir });
    expectExit(r, 0);
    expect(r.stdout).toBe("42\n");
    expect(await d2.stop()).toBe(0);
  });

  test("a run remote by setting (MCPX_REMOTE=1) runs on the daemon, and the runtime the client started before its config said so is ended", async () => {
    const marker = uniqueMarker("remote-by-setting");
    // the marker is in the client's environment only: a runtime started by the client inherits it, the daemon's never does
    const r = await mcpx(sb, ["exec", "console.log(process.ppid)"], { env: { MCPX_REMOTE: "1", MCPX_TRACE: "1", MCPX_E2E_MARK: marker } });
    expectExit(r, 0);
    expect(r.stdout).toBe(`${d.proc.pid}\n`);
    // it could not know before reading config that the run was not its own
    expect(r.stderr).toContain("mcpx trace");
    expect(r.stderr).toMatch(/ runtime spawned\n/);
    expect(r.stderr).not.toMatch(/ run handed over\n/);
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  test("with --remote on the command line the client starts no runtime of its own", async () => {
    const r = await mcpx(sb, ["exec", "--remote", "console.log(process.ppid)"], { env: { MCPX_TRACE: "1" } });
    expectExit(r, 0);
    expect(r.stdout).toBe(`${d.proc.pid}\n`);
    expect(r.stderr).toContain("mcpx trace");
    expect(r.stderr).not.toMatch(/ runtime spawned\n/);
  });

  test("with no daemon at the address and daemon.autoStart off, --remote exits 2 and says how to start one", async () => {
    const nowhere = join(sb.dir, "nobody-here.sock");
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", nowhere, "console.log(1)"], { env: { MCPX_DAEMON_AUTO_START: "false" } });
    expectExit(r, 2);
    expect(r.stderr).toBe(`mcpx exec: no daemon at ${nowhere}: start one with \`mcpx daemon start\`\n`);
    expect(r.stdout).toBe("");
  });

  test("Ctrl-C on a --remote client cancels the run on the daemon: exit 130, no process left", async () => {
    const marker = uniqueMarker("remote-sigint");
    const snippet =
      'import { spawn } from "node:child_process"; spawn("sleep", ["300"], { stdio: "ignore" ' +
      '}); console.log("spawned"); await new Promise(() => setInterval(() => {}, 1000))';
    const proc = Bun.spawn([MCPX, "exec", "--remote", "--env", `MCPX_E2E_MARK=${marker}`, snippet], {
      cwd: sb.dir,
      env: sb.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!out.includes("spawned")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the client ended before the script spawned: ${await new Response(proc.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    // the client has the marker in its argv; the run's runtime and its sleep have it in their environment
    // (the sleep may not be readable in /proc at the instant "spawned" arrives: wait for it, bounded)
    expect((await processesAppear(marker, 3)).filter((pid) => pid !== proc.pid).length).toBeGreaterThanOrEqual(2);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(await new Response(proc.stderr).text()).toContain("the run was interrupted");
    const left = await leftoverProcesses(marker, 8000);
    expect(left.filter((pid) => pid !== proc.pid)).toEqual([]);
  });

  test("a second daemon on a live socket exits 2: a daemon is already listening", async () => {
    const r = await mcpx(sb, ["daemon"]);
    expectExit(r, 2);
    expect(r.stderr).toBe(`mcpx daemon: a daemon is already listening on ${d.address}: stop it first, or set daemon.address to another path\n`);
  });

  test("a stale socket left by a daemon that died is replaced", async () => {
    const sock = join(sb.dir, "stale", "d.sock");
    const first = await startDaemon(sb, ["--daemon-address", sock]);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(statSync(sock).isSocket()).toBe(true);
    const second = await startDaemon(sb, ["--daemon-address", sock]);
    expect((await second.fetch("/v1/health")).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  test("a path that is not a socket is never replaced", async () => {
    const file = join(sb.dir, "not-a-socket");
    writeFileSync(file, "precious\n");
    const r = await mcpx(sb, ["daemon", "--daemon-address", file]);
    expectExit(r, 2);
    expect(r.stderr).toContain(`${file} exists and is not a socket`);
  });
});
