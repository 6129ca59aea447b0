// A script runtime started before its run (lib/runtime/ready-runtime.ts): the CLI spawns one while
// run/exec loads, the daemon keeps one for its next run. A run takes it only when it was started
// exactly as the run would start it; the script must then see its environment, --env, cwd, stdin and
// runtime exactly as with a runtime of its own, and a started runtime nobody takes must not outlive
// the process that started it.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, processesWith, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, processesAppear, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
sb.write("sub/dir/.keep", "");
writeConfig(sb, "on-deno/.mcpx.json", { mcpServers: { fake: fakeServer() }, script: { runtime: "deno" } });
writeConfig(sb, "sandboxed/.mcpx.json", { mcpServers: { fake: fakeServer() }, exec: { sandbox: "on" } });
writeConfig(sb, "sandboxed-quickjs/.mcpx.json", { mcpServers: { fake: fakeServer() }, exec: { sandbox: "on" } });

/** in every started runtime's command line: the entry that waits for its run */
const READY = join(sb.env.XDG_CACHE_HOME!, "mcpx", "launch", "ready-");

/** what a script sees of its start, on either runtime, and which one it ran on */
const SHOW =
  "const runtime = typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node'; let stdin = ''; " +
  "if (runtime === 'bun') stdin = await new Response(Bun.stdin.stream()).text(); " +
  "else if (runtime === 'deno') stdin = await new Response(Deno.stdin.readable).text(); " +
  "else for await (const c of process.stdin) stdin += c; " +
  "return { pid: process.pid, runtime, who: process.env.WHO ?? null, greeting: process.env.GREETING ?? null, " +
  "cwd: process.cwd(), stdin, argv1: process.argv[1] }";

const traced = (stderr: string, stage: string) => stderr.split("\n").filter((l) => l.startsWith("mcpx trace ") && l.endsWith(`ms ${stage}`)).length;

afterAll(stopDaemons);

beforeAll(async () => {
  // the first run in a cache builds the runtime bundle; only later runs find a runtime started early
  expectExit(await mcpx(sb, ["exec", "1"]), 0);
});

describe("the runtime the CLI starts before it reads config", () => {
  /** SHOW from sub/dir, with --env, a variable of the caller's and stdin piped in */
  const fromSubDir = async (extra: string[], env: Record<string, string> = {}) => {
    const cwd = join(sb.dir, "sub/dir");
    const r = await mcpx(sb, ["exec", ...extra, "--json", "--env", "GREETING=hello there", SHOW], { cwd, env: { ...env, WHO: "caller" }, stdin: "piped in\n" });
    expectExit(r, 0);
    const seen = { pid: 0, who: "caller", greeting: "hello there", cwd, stdin: "piped in\n", argv1: expect.stringContaining("/launch/launcher-") };
    return { r, seen, result: { ...JSON.parse(r.stdout).result, pid: 0 } };
  };

  /** `mcpx exec ARGS…` (exit 0, printing `prints`) and how its runtime came: spawned, and taken as started early */
  const started = async (args: string[], prints: string, opts: { cwd?: string; env?: Record<string, string> } = {}) => {
    const r = await mcpx(sb, ["exec", ...args], { cwd: opts.cwd ?? sb.dir, env: { ...opts.env, MCPX_TRACE: "1" } });
    expectExit(r, 0);
    expect(r.stdout).toBe(prints);
    return { spawned: traced(r.stderr, "runtime spawned"), taken: traced(r.stderr, "runtime taken (started early)") };
  };

  test("the run takes it, and the script sees its environment, --env, cwd and stdin exactly", async () => {
    const { r, seen, result } = await fromSubDir([], { MCPX_TRACE: "1" });
    expect(traced(r.stderr, "runtime taken (started early)")).toBe(1);
    expect(traced(r.stderr, "runtime spawned")).toBe(1);
    expect(result).toEqual({ ...seen, runtime: "bun" });
    expect(await leftoverProcesses(READY)).toEqual([]);
  });

  test("a config that says deno runs the script on Deno: the first run there ends the Bun started early unused, the next starts Deno early", async () => {
    const denoDir = { cwd: join(sb.dir, "on-deno") };
    // the early one (Bun, the default), then Deno
    expect(await started(["return typeof Deno"], "object\n", denoDir)).toEqual({ spawned: 2, taken: 0 });
    // the run noted what it wanted here
    expect(await started(["return typeof Deno"], "object\n", denoDir)).toEqual({ spawned: 1, taken: 1 });
    expect(await started(["return typeof Deno"], "object\n", denoDir)).toEqual({ spawned: 1, taken: 1 });
    // elsewhere, and with another environment, the guess is still Bun
    expect((await started(["return typeof Deno"], "undefined\n")).taken).toBe(1);
    expect((await started(["return 1"], "1\n", { ...denoDir, env: { MCPX_SCRIPT_RUNTIME: "bun" } })).taken).toBe(1);
    expect(await leftoverProcesses(READY)).toEqual([]);
  });

  test.each(["deno", "node"])("--runtime %s on the command line starts that runtime early, and the run takes it", async (runtime) => {
    expect(await started(["--runtime", runtime, "return typeof Bun"], "undefined\n")).toEqual({ spawned: 1, taken: 1 });
  });

  test("a sandboxed run on Deno starts its runtime with its run: after the first run there, none is started early", async () => {
    const sandboxed = { cwd: join(sb.dir, "sandboxed"), env: { MCPX_EXEC_SANDBOX_ENGINE: "deno" } };
    expect(await started(["return 2"], "2\n", sandboxed)).toEqual({ spawned: 2, taken: 0 });
    expect(await started(["return 2"], "2\n", sandboxed)).toEqual({ spawned: 1, taken: 0 });
    // --sandbox on says so itself
    expect((await started(["--sandbox", "on", "--sandbox-engine", "deno", "return 3"], "3\n")).spawned).toBe(1);
    expect(await leftoverProcesses(READY)).toEqual([]);
  });

  test("a sandboxed run on the embedded QuickJS starts no runtime: after the first run there, none is started early", async () => {
    const sandboxed = { cwd: join(sb.dir, "sandboxed-quickjs") };
    // the first run's early Bun was a guess, ended unused
    expect(await started(["return 2"], "2\n", sandboxed)).toEqual({ spawned: 1, taken: 0 });
    expect(await started(["return 2"], "2\n", sandboxed)).toEqual({ spawned: 0, taken: 0 });
    expect((await started(["--sandbox", "on", "return 3"], "3\n")).spawned).toBe(0);
    expect(await leftoverProcesses(READY)).toEqual([]);
  });

  test.each(["deno", "node"])(
    "a %s run is started as a runtime that waits for its run, and the script sees its environment, --env, cwd and stdin exactly",
    async (runtime) => {
      const { seen, result } = await fromSubDir(["--runtime", runtime]);
      expect(result).toEqual({ ...seen, runtime, argv1: expect.stringMatching(/\/launch(-node)?\/launcher-/) });
      expect(await leftoverProcesses(READY)).toEqual([]);
    },
  );

  test("a run that fails before it starts leaves no started runtime behind", async () => {
    const r = await mcpx(sb, ["exec", "--output", "nonsense", "1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("--output nonsense");
    expect(await leftoverProcesses(READY)).toEqual([]);
  });
});

describe("the runtime the daemon keeps started", () => {
  let d: Daemon;
  beforeAll(async () => {
    d = await startDaemon(sb, [], { env: { WHO: "daemon" } });
  });

  const remote = async (extra: string[] = []) => {
    const r = await mcpx(sb, ["exec", "--remote", "--json", ...extra, SHOW]);
    expectExit(r, 0);
    return JSON.parse(r.stdout).result as { pid: number; who: string | null; greeting: string | null; cwd: string; stdin: string };
  };

  test("the first run is served by the runtime the daemon started with it, the next by the one started after it, and stop ends the kept one", async () => {
    const [primed] = await processesAppear(READY, 1);
    expect(parentOf(primed!)).toBe(d.proc.pid);
    const first = await remote();
    expect(first.pid).toBe(primed!);
    expect(first).toMatchObject({ who: "daemon", greeting: null, cwd: sb.dir, stdin: "" });
    const [kept] = await processesAppear(READY, 1);
    expect(parentOf(kept!)).toBe(d.proc.pid);

    const second = await remote();
    expect(second.pid).toBe(kept!);
    expect(second).toMatchObject({ who: "daemon", greeting: null, cwd: sb.dir, stdin: "" });

    // --env changes the environment a runtime starts with: the kept one does not fit and is ended, and
    // none is kept with the run's own variables, which end with it
    const [keptNext] = await processesAppear(READY, 1);
    const third = await remote(["--env", "GREETING=other"]);
    expect(third.pid).not.toBe(keptNext!);
    expect(third).toMatchObject({ who: "daemon", greeting: "other" });
    expect(await gone(keptNext!)).toBe(true);
    expect(processesWith(READY)).toEqual([]);

    // a kept runtime killed from outside while it waits: the next run starts its own
    await remote();
    const [killed] = await processesAppear(READY, 1);
    process.kill(killed!, "SIGKILL");
    const fifth = await remote();
    expect(fifth.pid).not.toBe(killed!);
    expect(fifth).toMatchObject({ who: "daemon", greeting: null, stdin: "" });

    await processesAppear(READY, 1);
    expect(await d.stop()).toBe(0);
    expect(await leftoverProcesses(READY)).toEqual([]);
  });
});

describe("the runtimes the daemon keeps started, one of each kind", () => {
  test("where config says deno, a Deno waits for the first run and another for the next; Bun and Node runs leave it kept; stop ends all", async () => {
    const cwd = join(sb.dir, "on-deno");
    const d = await startDaemon(sb, [], { cwd, env: { WHO: "daemon" } });
    const remote = async (extra: string[] = []) => {
      const r = await mcpx(sb, ["exec", "--remote", "--json", ...extra, SHOW], { cwd });
      expectExit(r, 0);
      return JSON.parse(r.stdout).result as { pid: number; runtime: string };
    };
    const [primed] = await processesAppear(READY, 1);
    expect(commandLine(primed!)).toContain("deno");
    expect(parentOf(primed!)).toBe(d.proc.pid);
    const first = await remote();
    expect(first).toMatchObject({
      pid: primed!,
      runtime: "deno",
      who: "daemon",
      greeting: null,
      cwd,
      stdin: "",
      argv1: expect.stringContaining("/launch/launcher-"),
    });

    const [kept] = await processesAppear(READY, 1);
    const second = await remote(["--timeout", "30s"]);
    expect(second).toMatchObject({ pid: kept!, runtime: "deno", who: "daemon", cwd, stdin: "" });

    // a Bun run and a Node run take no Deno and end none: one of each kind is kept from then on
    const [keptDeno] = await processesAppear(READY, 1);
    expect(await remote(["--runtime", "bun"])).toMatchObject({ runtime: "bun", who: "daemon", cwd });
    expect(await remote(["--runtime", "node"])).toMatchObject({ runtime: "node", who: "daemon", cwd, stdin: "" });
    const kinds = (pids: number[]) => pids.map((pid) => commandLine(pid).split(" ")[0]!.replace(/^.*\//, "")).sort();
    const three = await processesAppear(READY, 3);
    expect(three).toContain(keptDeno!);
    expect(kinds(three)).toEqual(["deno", "mcpx", "node"]);
    expect((await remote()).pid).toBe(keptDeno!);
    const [keptNode] = (await processesAppear(READY, 3)).filter((pid) => kinds([pid])[0] === "node");
    expect(await remote(["--runtime", "node"])).toMatchObject({ pid: keptNode!, runtime: "node" });

    await processesAppear(READY, 3);
    expect(await d.stop()).toBe(0);
    expect(await leftoverProcesses(READY)).toEqual([]);
  });
});

/** a live process's command line, its arguments joined by spaces */
function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
}

/** waits up to 5 s for a process to be gone */
async function gone(pid: number): Promise<boolean> {
  for (const until = Date.now() + 5000; parentOf(pid) !== undefined; await Bun.sleep(20)) if (Date.now() > until) return false;
  return true;
}

/** the parent pid of a live process, or undefined when it is gone */
function parentOf(pid: number): number | undefined {
  try {
    return Number(
      readFileSync(`/proc/${pid}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ")[1],
    );
  } catch {
    return undefined;
  }
}
