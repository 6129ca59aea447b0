// A daemon an orchestrator can run (docs/deploy.md, docs/decisions/0025): GET /v1/health is liveness,
// GET /v1/health/ready says whether every configured server is up, and SIGTERM drains: new runs get
// 503 DRAINING, runs in flight finish within daemon.drainGrace, the rest are cancelled, exit 0.
// Nothing here waits on time: a server's start and a run's end are held on files the test creates,
// and every wait polls the condition itself, bounded.

import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, FAKE_SERVER, fakeServer, MCPX, sandbox, type Sandbox } from "./harness.ts";
import { leftoverProcesses, processesAppear, uniqueMarker, until, writeConfig } from "./support.ts";
import { execEnvelope, readLines, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

afterAll(stopDaemons);

interface Ready {
  ready: boolean;
  draining: boolean;
  servers: Record<string, string>;
  why?: string;
}

async function ready(d: Daemon): Promise<{ status: number; body: Ready }> {
  const res = await d.fetch("/v1/health/ready");
  return { status: res.status, body: (await res.json()) as Ready };
}

/** polls readiness until `holds` (at most 20 s) and returns that answer (async: the answer is fetched, so support.ts until cannot) */
async function readyWhen(d: Daemon, holds: (r: { status: number; body: Ready }) => boolean): Promise<{ status: number; body: Ready }> {
  let last: { status: number; body: Ready } | undefined;
  for (let waited = 0; waited < 20_000; waited += 50) {
    last = await ready(d);
    if (holds(last)) return last;
    await Bun.sleep(50);
  }
  throw new Error(`readiness never got there: ${JSON.stringify(last)}`);
}

/** a fake server that starts only once `gate` exists: its start is held until the test lets it go */
function gatedServer(gate: string) {
  return { command: "sh", args: ["-c", `while [ ! -e "${gate}" ]; do sleep 0.05; done; exec "${BUN}" "${FAKE_SERVER}"`] };
}

/** a script that says it is waiting, then waits until `gate` exists and returns `value` */
function heldRun(gate: string, value: string): string {
  return [
    'import { existsSync } from "node:fs";',
    'console.log("waiting");',
    `while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));`,
    `export default () => ${JSON.stringify(value)};`,
  ].join("\n");
}

/** POST /v1/exec streaming NDJSON: the frames so far, and the end of the stream */
async function streamRun(d: Daemon, body: unknown): Promise<{ frames: Array<Record<string, unknown>>; ended: Promise<void> }> {
  const frames: Array<Record<string, unknown>> = [];
  const res = await d.fetch("/v1/exec", { method: "POST", headers: { accept: "application/x-ndjson" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const ended = readLines(res, (line) => void frames.push(JSON.parse(line)));
  return { frames, ended };
}

const START_SERVERS = { MCPX_DAEMON_START_SERVERS: "1" };

describe("readiness", () => {
  test("with daemon.startServers, readiness is 503 while a server starts and 200 once every server answered initialize", async () => {
    const sb = sandbox();
    const gate = join(sb.dir, "let-slow-start");
    writeConfig(sb, ".mcpx.json", { mcpServers: { fast: fakeServer(), slow: gatedServer(gate) } });
    const d = await startDaemon(sb, [], { env: START_SERVERS });
    // liveness is green from the first answer, whatever the servers do
    expect((await d.fetch("/v1/health")).status).toBe(200);
    const before = await readyWhen(d, (r) => r.body.servers.fast === "up");
    expect(before.status).toBe(503);
    expect(before.body).toMatchObject({ ready: false, draining: false, servers: { fast: "up", slow: "starting" } });
    expect(before.body.why).toContain("slow");
    writeFileSync(gate, "");
    const after = await readyWhen(d, (r) => r.status === 200);
    // liveness says the same readiness in its body, still with 200
    const live = await d.fetch("/v1/health");
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ ok: true, ready: true, servers: { fast: "up", slow: "up" } });
    expect(after.body).toEqual({ ready: true, draining: false, servers: { fast: "up", slow: "up" } });
    // the probe the docs show: mcpx daemon status --ready exits 0 now
    const probe = Bun.spawnSync([MCPX, "daemon", "status", "--ready"], { cwd: sb.dir, env: sb.env });
    expect({ code: probe.exitCode, out: probe.stdout.toString() }).toMatchObject({ code: 0, out: expect.stringMatching(/^ready on /) });
  });

  test("a server that fails to start is shown failed with its reason, and readiness stays 503", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", {
      mcpServers: { fake: fakeServer(), broken: { command: "sh", args: ["-c", "echo the-broken-server-gave-up >&2; exit 3"] } },
    });
    const d = await startDaemon(sb, [], { env: START_SERVERS });
    const r = await readyWhen(d, (x) => x.body.servers.broken?.startsWith("failed: ") === true && x.body.servers.fake === "up");
    expect(r.status).toBe(503);
    expect(r.body.servers.fake).toBe("up");
    expect(r.body.servers.broken).toContain("the-broken-server-gave-up");
    expect(d.stderr()).toContain("server broken did not start");
  });

  test("without daemon.startServers a server starts on first use: down and 503 before it, 200 after", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    const d = await startDaemon(sb);
    const before = await ready(d);
    expect(before.status).toBe(503);
    expect(before.body.servers).toEqual({ fake: "down" });
    expect(before.body.why).toContain("daemon.startServers");
    expect((await execEnvelope(d, { source: 'await fake.echo({ message: "wake" })' })).ok).toBe(true);
    expect(await ready(d)).toEqual({ status: 200, body: { ready: true, draining: false, servers: { fake: "up" } } });
  });
});

describe("SIGTERM drains", () => {
  async function drainingDaemon(sb: Sandbox, args: string[]): Promise<Daemon> {
    writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    return startDaemon(sb, args, { env: START_SERVERS });
  }

  test("under load: new runs get 503 naming the drain, the runs in flight finish with their results, and the daemon exits 0", async () => {
    const sb = sandbox();
    const d = await drainingDaemon(sb, ["--daemon-drain-grace", "2m"]);
    const gate = join(sb.dir, "let-runs-finish");
    const runs = await Promise.all([1, 2, 3].map((i) => streamRun(d, { source: heldRun(gate, `result ${i}`) })));
    await until(() => runs.every((r) => r.frames.some((f) => f.type === "stdout")), "never happened: every run is in flight");
    d.proc.kill("SIGTERM");
    const draining = await readyWhen(d, (r) => r.body.draining);
    expect(draining.status).toBe(503);
    // liveness stays green while the daemon drains: an orchestrator must not kill it for draining
    const live = await d.fetch("/v1/health");
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ draining: true, runs: { active: 3 } });
    const refused = await d.fetch("/v1/exec", { method: "POST", body: JSON.stringify({ source: "1" }) });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("DRAINING");
    expect(error.message).toContain("draining");
    expect(error.message).toContain("daemon.drainGrace");
    const call = await d.fetch("/v1/call", { method: "POST", body: JSON.stringify({ server: "fake", tool: "echo", args: { message: "x" } }) });
    expect(call.status).toBe(503);
    writeFileSync(gate, "");
    await Promise.all(runs.map((r) => r.ended));
    expect(await d.proc.exited).toBe(0);
    for (const [i, r] of runs.entries()) {
      expect(r.frames.find((f) => f.type === "result")).toMatchObject({ value: `result ${i + 1}` });
      expect(r.frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
    }
    expect(d.stderr()).not.toContain("still going after daemon.drainGrace");
  });

  test("a run still going when daemon.drainGrace ends is cancelled, its processes are gone, and the daemon exits 0", async () => {
    const sb = sandbox();
    const marker = uniqueMarker("daemon-drain");
    const d = await drainingDaemon(sb, ["--daemon-drain-grace", "1s"]);
    const run = await streamRun(d, {
      source: ['import { spawn } from "node:child_process";', 'spawn("sleep", ["300"], { stdio: "ignore" });', heldRun(join(sb.dir, "never"), "x")].join("\n"),
      env: { MCPX_E2E_MARK: marker },
    });
    await until(() => run.frames.some((f) => f.type === "stdout"), "never happened: the run is in flight");
    await processesAppear(marker, 2); // the runtime, sleep
    d.proc.kill("SIGTERM");
    expect(await d.proc.exited).toBe(0);
    await run.ended.catch(() => {});
    expect(run.frames.at(-2)).toMatchObject({ type: "error", error: { code: "INTERRUPTED" } });
    expect(run.frames.at(-1)).toMatchObject({ type: "end", exitCode: 130 });
    expect(await leftoverProcesses(marker, 5000)).toEqual([]);
    expect(d.stderr()).toContain("1 runs still going after daemon.drainGrace are cancelled");
  });

  test("a second SIGTERM ends a drain at once: the run in flight is cancelled", async () => {
    const sb = sandbox();
    const d = await drainingDaemon(sb, ["--daemon-drain-grace", "10m"]);
    const run = await streamRun(d, { source: heldRun(join(sb.dir, "never"), "x") });
    await until(() => run.frames.some((f) => f.type === "stdout"), "never happened: the run is in flight");
    d.proc.kill("SIGTERM");
    await readyWhen(d, (r) => r.body.draining);
    d.proc.kill("SIGTERM");
    expect(await d.proc.exited).toBe(0);
    await run.ended.catch(() => {});
    expect(run.frames.at(-1)).toMatchObject({ type: "end", exitCode: 130 });
  });
});
