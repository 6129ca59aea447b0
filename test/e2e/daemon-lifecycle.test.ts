// mcpx daemon start | status | stop | restart, and the daemon --remote starts on demand: one daemon
// per user and config chain, found again by its socket and pid file, ended by stop, never doubled by
// a second start, and never left behind by a test (afterAll stops every one a test could have made).

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { running } from "../../lib/process/proc-table.ts";
import { fakeServer, sandbox, type Sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";

/** every (sandbox, directory) a test may have started a daemon in */
const places: Array<{ sb: Sandbox; cwd: string; env?: Record<string, string> }> = [];
const pids: number[] = [];

afterAll(async () => {
  await stopDaemons();
  await Promise.all(places.map((p) => mcpx(p.sb, ["daemon", "stop"], { cwd: p.cwd, env: p.env })));
  for (const pid of pids) if (running(pid)) process.kill(pid, "SIGKILL");
  expect(pids.filter(running)).toEqual([]);
});

/** a loopback port nothing listens on now */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** waits until the process is gone (stop returns once it is; this only covers the kernel's reaping) */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && running(pid); i++) await Bun.sleep(10);
  return !running(pid);
}

interface Status {
  address: string;
  running: boolean;
  pid?: number;
  config?: string[];
  cwd?: string;
  pidFile?: string;
  log?: string | null;
}

async function status(sb: Sandbox, cwd = sb.dir, env: Record<string, string> = {}): Promise<{ code: number; s: Status }> {
  const r = await mcpx(sb, ["daemon", "status", "--json"], { cwd, env });
  return { code: r.code, s: JSON.parse(r.stdout) as Status };
}

function project(name: string, servers: Record<string, unknown>): { sb: Sandbox; cwd: string } {
  const sb = sandbox();
  const cwd = join(sb.dir, name);
  writeConfig(sb, `${name}/.mcpx.json`, { mcpServers: servers });
  places.push({ sb, cwd });
  return { sb, cwd };
}

describe("mcpx daemon start, status, stop", () => {
  test("status before start exits 3 and says where it looked; start puts one in the background that status then describes", async () => {
    const { sb, cwd } = project("p", { fake: fakeServer() });
    const before = await mcpx(sb, ["daemon", "status"], { cwd });
    expectExit(before, 3);
    expect(before.stdout).toMatch(new RegExp(`^not running on ${sb.env.XDG_RUNTIME_DIR}/mcpx/d-[0-9a-f]{10}\\.sock\\n$`));

    const start = await mcpx(sb, ["daemon", "start"], { cwd });
    expectExit(start, 0);
    const m = /^started on (\S+) \(pid (\d+)\); its output goes to (\S+)\n$/.exec(start.stdout);
    expect(m).not.toBeNull();
    const [, address, pidText, log] = m!;
    const pid = Number(pidText);
    pids.push(pid);
    expect(running(pid)).toBe(true);

    const { code, s } = await status(sb, cwd);
    expect(code).toBe(0);
    expect(s).toMatchObject({ address, running: true, pid, cwd, config: [join(cwd, ".mcpx.json")], log });
    expect(readFileSync(s.pidFile!, "utf8")).toBe(`${pid}\n`);
    expect(statSync(s.pidFile!).mode & 0o777).toBe(0o600);
    expect(statSync(address!).mode & 0o777).toBe(0o600);
    expect(readFileSync(log!, "utf8")).toContain(`mcpx daemon listening on ${address}`);
    const human = await mcpx(sb, ["daemon", "status"], { cwd });
    expect(human.stdout).toContain(`running on ${address} (pid ${pid}`);
    expect(human.stdout).toContain(`config: ${join(cwd, ".mcpx.json")}`);

    // the daemon started in the background is the one --remote reaches, with this project's servers
    const run = await mcpx(sb, ["exec", "--remote", 'console.log(await fake.echo({ message: "bg" }))'], { cwd });
    expectExit(run, 0);
    expect(run.stdout).toBe("bg\n");
    expect(run.stderr).not.toContain("started");

    const stop = await mcpx(sb, ["daemon", "stop"], { cwd });
    expectExit(stop, 0);
    expect(stop.stdout).toBe(`stopped the daemon on ${address} (pid ${pid})\n`);
    expect(await gone(pid)).toBe(true);
    expect(existsSync(address!)).toBe(false);
    expect(existsSync(s.pidFile!)).toBe(false);
    const again = await mcpx(sb, ["daemon", "stop"], { cwd });
    expectExit(again, 0);
    expect(again.stdout).toBe(`no daemon was running on ${address}\n`);
    expect((await status(sb, cwd)).code).toBe(3);
  });

  test("a second start finds the first and starts nothing: one daemon per user and config", async () => {
    const { sb, cwd } = project("one", { fake: fakeServer() });
    const first = await mcpx(sb, ["daemon", "start", "--json"], { cwd });
    expectExit(first, 0);
    const a = JSON.parse(first.stdout) as { pid: number; started: boolean; address: string };
    pids.push(a.pid);
    expect(a.started).toBe(true);
    const [second, third] = await Promise.all([mcpx(sb, ["daemon", "start", "--json"], { cwd }), mcpx(sb, ["daemon", "start"], { cwd })]);
    expectExit(second, 0);
    expect(JSON.parse(second.stdout)).toMatchObject({ address: a.address, running: true, started: false, pid: a.pid });
    expect(third.stdout).toContain(`already running on ${a.address} (pid ${a.pid})`);
    expect((await status(sb, cwd)).s.pid).toBe(a.pid);
  });

  test("two projects of one user get two daemons, each with its own config's servers", async () => {
    const sb = sandbox();
    const left = join(sb.dir, "left");
    const right = join(sb.dir, "right");
    writeConfig(sb, "left/.mcpx.json", { mcpServers: { leftie: fakeServer() } });
    writeConfig(sb, "right/.mcpx.json", { mcpServers: { rightie: fakeServer() } });
    places.push({ sb, cwd: left }, { sb, cwd: right });
    for (const cwd of [left, right]) expectExit(await mcpx(sb, ["daemon", "start"], { cwd }), 0);
    const [l, r] = [(await status(sb, left)).s, (await status(sb, right)).s];
    pids.push(l.pid!, r.pid!);
    expect(l.address).not.toBe(r.address);
    expect(l.pid).not.toBe(r.pid);
    const lr = await mcpx(sb, ["ls", "--remote", "--json"], { cwd: left });
    const rr = await mcpx(sb, ["ls", "--remote", "--json"], { cwd: right });
    expect(lr.stdout).toContain("leftie");
    expect(lr.stdout).not.toContain("rightie");
    expect(rr.stdout).toContain("rightie");
    expect(rr.stdout).not.toContain("leftie");
    // the user's own config alone (no project file) has the plain daemon.sock, not started here
    expect((await status(sb, sb.home)).s.address).toBe(join(sb.env.XDG_RUNTIME_DIR!, "mcpx", "daemon.sock"));
  });

  test("restart ends the daemon and starts one that reads the config as it is now", async () => {
    const { sb, cwd } = project("re", { first: fakeServer() });
    expectExit(await mcpx(sb, ["daemon", "start"], { cwd }), 0);
    const before = (await status(sb, cwd)).s;
    pids.push(before.pid!);
    writeConfig(sb, "re/.mcpx.json", { mcpServers: { first: fakeServer(), second: fakeServer() } });
    const r = await mcpx(sb, ["daemon", "restart"], { cwd });
    expectExit(r, 0);
    expect(r.stdout).toContain(`stopped the daemon on ${before.address} (pid ${before.pid})\nstarted on ${before.address} (pid `);
    const after = (await status(sb, cwd)).s;
    pids.push(after.pid!);
    expect(after.pid).not.toBe(before.pid);
    expect(await gone(before.pid!)).toBe(true);
    const ls = await mcpx(sb, ["ls", "--remote"], { cwd });
    expect(ls.stdout).toContain("second");
  });

  test("a daemon started in the foreground is found by status and ended by stop", async () => {
    const sb = sandbox();
    places.push({ sb, cwd: sb.dir });
    const d = await startDaemon(sb);
    const { s } = await status(sb);
    expect(s).toMatchObject({ running: true, address: d.address, pid: d.proc.pid, log: null });
    const stop = await mcpx(sb, ["daemon", "stop"]);
    expect(stop.stdout).toBe(`stopped the daemon on ${d.address} (pid ${d.proc.pid})\n`);
    expect(await d.proc.exited).toBe(0);
    expect(existsSync(s.pidFile!)).toBe(false);
  });

  test("a stale pid file is never signalled: status and stop say not running and remove it", async () => {
    const sb = sandbox();
    places.push({ sb, cwd: sb.dir });
    const { s } = await status(sb);
    mkdirSync(join(s.address, ".."), { recursive: true });
    // a live process that is not a daemon (this test runner), named by a pid file of a daemon killed hard
    writeFileSync(s.address.replace(/\.sock$/, ".pid"), `${process.pid}\n`);
    const st = await mcpx(sb, ["daemon", "status"]);
    expectExit(st, 3);
    expect(st.stdout).toBe(`not running on ${s.address} (removed a stale pid file for pid ${process.pid})\n`);
    writeFileSync(s.address.replace(/\.sock$/, ".pid"), `${process.pid}\n`);
    const stop = await mcpx(sb, ["daemon", "stop"]);
    expectExit(stop, 0);
    expect(stop.stdout).toBe(`no daemon was running on ${s.address}\n`);
    expect(existsSync(s.address.replace(/\.sock$/, ".pid"))).toBe(false);
    expect(running(process.pid)).toBe(true);
  });
});

describe("a daemon that cannot start says why", () => {
  test("an untrusted project: start exits 2 naming the file and mcpx trust, and nothing is left running", async () => {
    const sb = sandbox();
    const cwd = join(sb.dir, "cloned");
    places.push({ sb, cwd });
    mkdirSync(cwd);
    // written past the harness, which would trust it
    const hook = { name: "cloned-hook", on: "script", phase: "before", run: ["sh", "-c", "echo pwned"] };
    writeFileSync(join(cwd, ".mcpx.json"), JSON.stringify({ hooks: [hook], mcpServers: { fake: fakeServer() } }));
    const r = await mcpx(sb, ["daemon", "start"], { cwd });
    expectExit(r, 2);
    expect(r.stderr).toContain(join(cwd, ".mcpx.json"));
    expect(r.stderr).toContain("mcpx trust");
    expect((await status(sb, cwd)).code).toBe(3);
    // and --remote does not start one there either: the same refusal, from the daemon it tried
    const remote = await mcpx(sb, ["exec", "--remote", "1"], { cwd });
    expectExit(remote, 2);
    expect(remote.stderr).toContain("mcpx trust");
    expect((await status(sb, cwd)).code).toBe(3);
  });

  test("a daemon that exits before listening: start exits with its code and prints what it said", async () => {
    const sb = sandbox();
    const env = { MCPX_DAEMON_ADDRESS: "http://127.0.0.1:47999" };
    places.push({ sb, cwd: sb.dir, env });
    const r = await mcpx(sb, ["daemon", "start"], { env });
    expectExit(r, 2);
    expect(r.stderr).toContain("mcpx daemon exited 2 before it listened");
    expect(r.stderr).toContain("TCP needs daemon.token");
    expect(r.stderr).toContain("its log: ");
  });

  test("wrong actions and flags are usage errors that list what is accepted", async () => {
    const sb = sandbox();
    const bad = await mcpx(sb, ["daemon", "stat"]);
    expectExit(bad, 2);
    expect(bad.stderr).toContain('unknown action "stat"');
    expect(bad.stderr).toContain("start|status|stop|restart");
    const two = await mcpx(sb, ["daemon", "start", "now"]);
    expectExit(two, 2);
    const json = await mcpx(sb, ["daemon", "--json"]);
    expectExit(json, 2);
    expect(json.stderr).toContain("--json is for mcpx daemon start|status|stop|restart");
    const port0 = await mcpx(sb, ["daemon", "start", "--daemon-address", "http://127.0.0.1:0"]);
    expectExit(port0, 2);
    expect(port0.stderr).toContain("port 0 is only for the foreground");
  });
});

describe("--remote starts the daemon on demand", () => {
  test("exec, call, resource, prompt, ls and types with no daemon start one (said once on stderr) and get the daemon's answer", async () => {
    const { sb, cwd } = project("od", { fake: fakeServer() });
    const first = await mcpx(sb, ["exec", "--remote", 'console.log(await fake.echo({ message: "on demand" }))'], { cwd });
    expectExit(first, 0);
    expect(first.stdout).toBe("on demand\n");
    expect(first.stderr).toMatch(/^mcpx: no daemon was listening on \S+, so one was started \(pid \d+, log \S+\); `mcpx daemon stop` ends it/);
    const { s } = await status(sb, cwd);
    pids.push(s.pid!);
    expect(s.running).toBe(true);
    for (const argv of [
      ["call", "--remote", "fake.echo", "message=hi"],
      ["ls", "--remote"],
      ["types", "--remote", "fake.echo"],
      ["resource", "--remote", "fake"],
      ["prompt", "--remote", "fake"],
    ]) {
      const r = await mcpx(sb, argv, { cwd });
      expectExit(r, 0);
      expect(r.stderr).not.toContain("was started");
    }
    expect((await status(sb, cwd)).s.pid).toBe(s.pid);
  });

  test("remote on in a config starts it for a bare `mcpx call` too, and daemon.autoStart false refuses instead", async () => {
    const sb = sandbox();
    const cwd = join(sb.dir, "cfg");
    places.push({ sb, cwd });
    writeConfig(sb, "cfg/.mcpx.json", { remote: true, mcpServers: { fake: fakeServer() } });
    const off = await mcpx(sb, ["call", "fake.echo", "message=x"], { cwd, env: { MCPX_DAEMON_AUTO_START: "0" } });
    expectExit(off, 2);
    expect(off.stderr).toContain("start one with `mcpx daemon start`");
    expect((await status(sb, cwd)).code).toBe(3);
    const on = await mcpx(sb, ["call", "fake.echo", "message=x"], { cwd });
    expectExit(on, 0);
    expect(on.stdout).toContain("x");
    expect(on.stderr).toContain("so one was started");
    pids.push((await status(sb, cwd)).s.pid!);
  });

  test("the daemon started for a --remote command gets its daemon address and token, the token never on its command line", async () => {
    const sb = sandbox();
    const token = "on-demand-token-0123456789abcdef";
    const address = `http://127.0.0.1:${freePort()}`;
    const env = { MCPX_DAEMON_TOKEN: token };
    places.push({ sb, cwd: sb.dir, env: { ...env, MCPX_DAEMON_ADDRESS: address } });
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", address, "--daemon-token", token, "console.log(6 * 7)"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("42\n");
    const { s } = await status(sb, sb.dir, { MCPX_DAEMON_ADDRESS: address, MCPX_DAEMON_TOKEN: token });
    pids.push(s.pid!);
    expect(s.address).toBe(address);
    const cmdline = readFileSync(`/proc/${s.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(`--daemon-address=${address}`);
    expect(cmdline.join(" ")).not.toContain(token);
    // a client without the token is refused by it
    const noToken = await mcpx(sb, ["exec", "--remote", "--daemon-address", address, "1"]);
    expectExit(noToken, 2);
    expect(noToken.stderr).toContain("refused");
  });
});
