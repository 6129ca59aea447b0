// Processes that outlive their run: nothing a run started survives it, even when it left
// the run's process group (setsid, spawn(..., {detached: true})), when mcpx itself is killed with
// SIGKILL, when a hook's grandchild keeps the hook's stdout open, or when an upstream server ignores
// the end of its stdin and SIGTERM. Every process here carries a unique marker (in its command line
// or its environment); each test first proves the process existed, then that it is gone.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { BUN, FAKE_SERVER, MCPX, processesWith, sandbox } from "./harness.ts";
import { expectExit, leftoverProcesses, mcpx, processesAppear, uniqueMarker, writeConfig } from "./support.ts";
import { execEnvelope, startDaemon, stopDaemons } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", {});

/** how long a test waits for a process it expects to appear, or to go */
const APPEAR_MS = 20_000;
const GONE_MS = 8_000;

// a failing test must not leave its processes running either
const markers: string[] = [];
function marker(label: string): string {
  const m = uniqueMarker(label);
  markers.push(m);
  return m;
}
afterAll(async () => {
  await stopDaemons();
  for (const m of markers) {
    for (const pid of processesWith(m)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
});

/** waits until at least `n` processes carry the marker; fails the test when they never appear */
const appeared = (m: string, n = 1): Promise<number[]> => processesAppear(m, n, APPEAR_MS);

/**
 * A script that starts a shell looping on `sleep 1` outside its own process group (through `how`),
 * with the marker as the shell's $0 (so the long-lived process always carries it, even when a
 * failing test's cleanup has to find it) and, unless `bareEnv`, in its environment; prints
 * "[started]" and then either waits forever or returns (`exit`; the child is unref'd so that the
 * runtime does not wait for it).
 */
function leaver(m: string, how: "setsid" | "detached", opts: { exit?: boolean; bareEnv?: boolean } = {}): string {
  const env = opts.bareEnv ? `{ PATH: process.env.PATH }` : `{ ...process.env, MCPX_E2E_MARKER: ${JSON.stringify(m)} }`;
  const spawn =
    how === "setsid"
      ? `spawn("setsid", ["sh", "-c", LOOP, ${JSON.stringify(m)}], { stdio: "ignore", env: ${env} }).unref()`
      : `spawn("sh", ["-c", LOOP, ${JSON.stringify(m)}], { stdio: "ignore", detached: true, env: ${env} }).unref()`;
  return [
    'import { spawn } from "node:child_process";',
    'const LOOP = "while :; do sleep 1; done";',
    `${spawn};`,
    'console.log("[started]");',
    opts.exit ? "" : "await new Promise(() => setInterval(() => {}, 1 << 30));",
  ].join("\n");
}

/** the script as a file, so that the marker is in no mcpx command line: only in what the script starts */
let files = 0;
function scriptFile(source: string): string {
  return sb.write(`script-${++files}.ts`, source);
}

/** starts mcpx in the background (not capped: the test signals it), with its output collected */
function background(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([MCPX, ...args], { cwd: sb.dir, env: { ...sb.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).then(([stdout, stderr, code]) => ({
    stdout,
    stderr,
    code,
  }));
  return { proc, out };
}

describe.concurrent("children that leave the run's process group end with the run", () => {
  test("--timeout ends a child started with setsid", async () => {
    const m = marker("setsid-timeout");
    const run = mcpx(sb, ["run", "--timeout", "2s", scriptFile(leaver(m, "setsid"))]);
    await appeared(m);
    expectExit(await run, 124);
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("--timeout ends a child spawned with detached: true", async () => {
    const m = marker("detached-timeout");
    const run = mcpx(sb, ["run", "--timeout", "2s", scriptFile(leaver(m, "detached"))]);
    await appeared(m);
    expectExit(await run, 124);
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("a detached child that dropped mcpx's environment is still found by its ancestry and ended", async () => {
    const m = marker("detached-bare-env");
    const run = mcpx(sb, ["run", "--timeout", "2s", scriptFile(leaver(m, "detached", { bareEnv: true }))]);
    await appeared(m);
    expectExit(await run, 124);
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("a script that returns normally does not leave its setsid child behind", async () => {
    const m = marker("setsid-exit");
    const r = await mcpx(sb, ["run", scriptFile(leaver(m, "setsid", { exit: true }))]);
    expectExit(r, 0);
    expect(r.stdout).toBe("[started]\n");
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("SIGINT to mcpx (cancel) ends a detached child of the script", async () => {
    const m = marker("detached-cancel");
    const { proc, out } = background(["run", scriptFile(leaver(m, "detached"))]);
    await appeared(m);
    proc.kill("SIGINT");
    expectExit(await out, 130);
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });
});

describe("on the daemon, where runs are concurrent", () => {
  test("a client that goes away ends its run's setsid child, and a concurrent run's child is left alone until its own run ends", async () => {
    const d = await startDaemon(sb);
    const gone = marker("daemon-disconnect-setsid");
    const kept = marker("daemon-concurrent-kept");
    // the run whose child must survive the other's end: it waits until a file appears, then returns
    const flag = `${sb.dir}/release-${kept}`;
    const keptSource =
      leaver(kept, "setsid", { exit: true }) + `\nwhile (!(await Bun.file(${JSON.stringify(flag)}).exists())) await new Promise((r) => setTimeout(r, 50));`;
    const keptRun = execEnvelope(d, { source: keptSource });
    const abort = new AbortController();
    const goneRun = d
      .fetch("/v1/exec", {
        method: "POST",
        headers: { accept: "application/x-ndjson" },
        body: JSON.stringify({ source: leaver(gone, "setsid") }),
        signal: abort.signal,
      })
      .then((res) => res.text())
      .catch(() => undefined);
    await appeared(gone);
    // the long-lived shell (its `sleep 1` children come and go)
    const keptShell = (await appeared(kept)).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(kept));
    abort.abort();
    await goneRun;
    expect(await leftoverProcesses(gone, GONE_MS)).toEqual([]);
    // the other run is still going, and so is what it started
    expect(keptShell).toBeNumber();
    expect(processesWith(kept)).toContain(keptShell!);
    await Bun.write(flag, "");
    expect((await keptRun).ok).toBe(true);
    expect(await leftoverProcesses(kept, GONE_MS)).toEqual([]);
    expect(await d.stop()).toBe(0);
  });
});

/** a script that starts a shell looping on `sleep 1` in its own group (the default), says so, and waits forever */
const SPAWN_AND_WAIT = [
  'import { spawn } from "node:child_process";',
  'spawn("sh", ["-c", "while :; do sleep 1; done"], { stdio: "ignore" });',
  'console.log("[started]");',
  "await new Promise(() => setInterval(() => {}, 1 << 30));",
].join("\n");

test("a host that ends normally leaves not even a zombie: its watcher has exited and been reaped before mcpx exits", async () => {
  // the script finds its host's watcher (lib/process/host-watch.ts) by its command line, and prints its pid
  const find = [
    'import { readdirSync, readFileSync } from "node:fs";',
    "const host = String(process.ppid);",
    "const pids = readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).filter((p) => {",
    "  try { const a = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\\0');",
    "    return a.includes('mcpx-host-watch') && a.includes(host); } catch { return false; }",
    "});",
    "console.log(pids.join(','));",
  ].join("\n");
  const r = await mcpx(sb, ["exec", find]);
  expectExit(r, 0);
  const pids = r.stdout.trim().split(",").filter(Boolean);
  expect(pids).toHaveLength(1);
  // a zombie still has its /proc entry (and keeps it under an init that reaps late, such as a container's)
  expect(pids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
});

describe.concurrent("SIGKILL of the host leaves nothing under init", () => {
  for (const runtime of ["bun", "deno", "node"]) {
    test(`a ${runtime} runtime whose mcpx exec was SIGKILLed ends itself and its children`, async () => {
      const m = marker(`host-killed-${runtime}`);
      // the marker is in mcpx's environment, so the runtime and everything it starts carry it too
      const { proc, out } = background(["exec", "--runtime", runtime, SPAWN_AND_WAIT], { MCPX_E2E_MARKER: m });
      await appeared(m, 4); // mcpx, the runtime, the shell, its sleep
      proc.kill("SIGKILL");
      await out;
      expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
    });
  }

  test("a run hook still running when its mcpx was SIGKILLed is ended (the host's watcher, lib/process/host-watch.ts)", async () => {
    const m = marker("host-killed-hook");
    // a script.before hook that never answers: a shell looping on sleep, with the marker as its $0
    const config = writeConfig(sb, "host-killed-hook.json", {
      hooks: [{ on: "script", phase: "before", run: ["sh", "-c", "while :; do sleep 1; done", m], timeout: "10m" }],
    });
    const { proc, out } = background(["exec", "--config", config, "console.log(1)"]);
    await appeared(m);
    proc.kill("SIGKILL");
    await out;
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("runs of a daemon that was SIGKILLed end themselves and their children", async () => {
    const own = sandbox();
    writeConfig(own, ".mcpx.json", {});
    const m = marker("daemon-killed");
    const d = await startDaemon(own, [], { env: { MCPX_E2E_MARKER: m } });
    const runs = [1, 2].map(() =>
      d
        .fetch("/v1/exec", { method: "POST", headers: { accept: "application/x-ndjson" }, body: JSON.stringify({ source: SPAWN_AND_WAIT }) })
        .then((res) => res.text())
        .catch(() => undefined),
    );
    await appeared(m, 7); // the daemon, and two runtimes with a shell and a sleep each
    d.proc.kill("SIGKILL");
    await Promise.all(runs);
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });
});

describe.concurrent("a hook's timeout bounds everything it started", () => {
  /**
   * mcpx exec with one script.before run hook (argv through sh), its marker in the hook's $0; with
   * `started`, a file the hook makes once all it starts is running, the proof it ran instead of a scan
   * of the process table, which can miss a hook that answers at once and is ended soon after
   */
  async function withHook(label: string, shell: string, timeout: string, started?: string) {
    const m = marker(label);
    const config = writeConfig(sb, `${label}.json`, { hooks: [{ on: "script", phase: "before", run: ["sh", "-c", shell, m], timeout }] });
    const run = mcpx(sb, ["exec", "--config", config, "--output", "stream", 'console.log("[script ran]")']);
    if (started === undefined) await appeared(m);
    const r = await run;
    if (started !== undefined) expect({ started: existsSync(started) }).toEqual({ started: true });
    return { m, r };
  }
  const hookFrame = (stdout: string) =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((f) => f.type === "hook");
  // a grandchild in a session of its own, holding the hook's stdout open, carrying the marker as $0
  const grandchild = 'setsid sh -c "while :; do sleep 1; done" "$0" &';

  test("a run hook that answers and exits while its setsid grandchild keeps stdout open does not hold the run, and the grandchild is ended", async () => {
    const started = `${sb.dir}/hook-grandchild-started`;
    // the grandchild says it runs; the hook answers once it does
    const child = `setsid sh -c "touch '${started}'; while :; do sleep 1; done" "$0" &`;
    const waitForChild = `until [ -e '${started}' ]; do sleep 0.02; done;`;
    const { m, r } = await withHook("hook-grandchild-stdout", `${child} ${waitForChild} echo '{}'; exit 0`, "30s", started);
    expectExit(r, 0);
    expect(r.stdout).toContain("[script ran]");
    expect(hookFrame(r.stdout)).not.toHaveProperty("failed");
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("a run hook that sleeps past its timeout while a setsid grandchild keeps stdout open fails by timeout, and neither is left", async () => {
    const { m, r } = await withHook("hook-timeout-grandchild", `${grandchild} while :; do sleep 1; done`, "1s");
    expectExit(r, 0);
    expect(r.stdout).toContain("[script ran]");
    expect(String(hookFrame(r.stdout)?.failed)).toContain("timed out");
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });

  test("a run hook that ignores SIGTERM is killed after the kill grace and the run goes on", async () => {
    const { m, r } = await withHook("hook-ignores-term", "trap '' TERM; while :; do sleep 1; done", "1s");
    expectExit(r, 0);
    expect(r.stdout).toContain("[script ran]");
    expect(String(hookFrame(r.stdout)?.failed)).toContain("timed out");
    expect(await leftoverProcesses(m, GONE_MS)).toEqual([]);
  });
});

describe.concurrent("an upstream server that ignores the end of its stdin and SIGTERM is still ended", () => {
  /** a config with one fake server that only SIGKILL ends, carrying the marker in its environment */
  function stubbornServer(label: string, knobs: Record<string, string> = {}, wrap = false) {
    const m = marker(label);
    const env = { FAKE_MCP_IGNORE_EOF: "1", FAKE_MCP_IGNORE_SIGTERM: "1", MCPX_E2E_MARKER: m, ...knobs };
    // wrapped, the server is a child of a shell that waits for it, as `npx` → `node` is
    const server = wrap ? { command: "sh", args: ["-c", `"${BUN}" "${FAKE_SERVER}"; true`], env } : { command: BUN, args: [FAKE_SERVER], env };
    return { m, config: writeConfig(sb, `${label}.json`, { mcpServers: { fake: server } }) };
  }

  test("mcpx exec does not exit before the server it started is gone", async () => {
    const { m, config } = stubbornServer("server-at-exit");
    const r = await mcpx(sb, ["exec", "--config", config, 'console.log(await fake.echo({ message: "up" }))']);
    expectExit(r, 0);
    expect(r.stdout).toBe("up\n");
    // no grace period here: mcpx waits for its servers before it exits
    expect(processesWith(m)).toEqual([]);
  });

  test("a server started through a wrapper process is ended with the wrapper", async () => {
    const { m, config } = stubbornServer("server-wrapped", {}, true);
    const r = await mcpx(sb, ["exec", "--config", config, 'console.log(await fake.echo({ message: "up" }))']);
    expectExit(r, 0);
    expect(processesWith(m)).toEqual([]);
  });

  test("a wrapped server whose answer is over mcp.maxMessage, which closes its transport, is ended with the wrapper", async () => {
    const { m, config } = stubbornServer("server-over-size", {}, true);
    const snippet = 'await fake.echo({ message: "x".repeat(300_000) }).catch((e) => console.log(e.message))';
    const r = await mcpx(sb, ["exec", "--config", config, "--mcp-max-message", "100000", snippet]);
    expectExit(r, 0);
    expect(r.stdout).toContain("exceeded mcp.maxMessage (100000 bytes)");
    expect(processesWith(m)).toEqual([]);
  });

  test("a server dropped after a call timeout is ended even when the run ends right after", async () => {
    const { m, config } = stubbornServer("server-call-timeout", { FAKE_MCP_HANG_TOOL: "slow" });
    const r = await mcpx(sb, [
      "exec",
      "--config",
      config,
      "--mcp-call-timeout",
      "1s",
      "await fake.slow({ ms: 1 }).catch((e) => console.log(e.code ?? e.message))",
    ]);
    expectExit(r, 0);
    expect(r.stdout).toContain("UPSTREAM_TIMEOUT");
    expect(processesWith(m)).toEqual([]);
  });

  test("a server that never answers initialize is ended when the start times out", async () => {
    const { m, config } = stubbornServer("server-init-timeout", { FAKE_MCP_HANG_INIT: "1" });
    const r = await mcpx(sb, ["exec", "--config", config, "--mcp-start-timeout", "1s", 'await fake.echo({ message: "never" })']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("could not be started");
    expect(processesWith(m)).toEqual([]);
  });
});
