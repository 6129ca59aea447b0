// Runs on the daemon: isolated from each other, cancelled (process group and all) when their client
// goes away or the daemon is stopped, and sharing one upstream pool that is reaped when idle.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { fakeServer, processesWith, sandbox } from "./harness.ts";
import { leftoverProcesses, uniqueMarker, writeConfig } from "./support.ts";
import { defaultSocket, events, execEnvelope, readLines, sse, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

/** a script that starts `sleep 300` (in its own process group, inherited), says so, and then waits forever */
const SPAWN_AND_WAIT = [
  'import { spawn } from "node:child_process";',
  'spawn("sleep", ["300"], { stdio: "ignore" });',
  'console.log("spawned");',
  "await new Promise(() => setInterval(() => {}, 1000));",
].join("\n");

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
let d: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  d = await startDaemon(sb);
});

describe.concurrent("runs are isolated and cancellable", () => {
  test("killing a streaming client mid-run ends the run's whole process group", async () => {
    const marker = uniqueMarker("daemon-disconnect");
    const abort = new AbortController();
    const res = await d.fetch("/v1/exec", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/x-ndjson" },
      body: JSON.stringify({ source: SPAWN_AND_WAIT, env: { MCPX_E2E_MARK: marker } }),
      signal: abort.signal,
    });
    let alive: number[] = [];
    await readLines(
      res,
      (line) => {
        const f = JSON.parse(line);
        if (f.type === "stdout" && f.data.includes("spawned")) {
          alive = processesWith(marker);
          return true; // abort: the client goes away mid-run
        }
        if (f.type === "end") throw new Error(`the run ended before the client went: ${line}`);
      },
      abort,
    );
    // the runtime and the sleep it started were both there before the client went
    expect(alive.length).toBeGreaterThanOrEqual(2);
    expect(await leftoverProcesses(marker, 8000)).toEqual([]);
  });

  test("a client waiting for the envelope that goes away also cancels its run", async () => {
    const marker = uniqueMarker("daemon-disconnect-json");
    const abort = new AbortController();
    const pending = d
      .fetch("/v1/exec", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ source: SPAWN_AND_WAIT, env: { MCPX_E2E_MARK: marker } }), signal: abort.signal })
      .catch(() => undefined);
    for (let waited = 0; processesWith(marker).length < 2; waited += 50) {
      if (waited > 20_000) throw new Error("the run never started its sleep");
      await Bun.sleep(50);
    }
    abort.abort();
    await pending;
    expect(await leftoverProcesses(marker, 8000)).toEqual([]);
  });

  test("20 concurrent runs each see only their own output, stdin, env and result", async () => {
    const tokens = Array.from({ length: 20 }, (_, i) => `token-${i}-${Math.random().toString(36).slice(2)}`);
    const source = [
      "const own = process.env.OWN_TOKEN!;",
      "console.log(own);",
      'console.error("err " + own);',
      "const echoed = await fake.echo({ message: own });",
      "export default async () => ({ echoed, stdin: await new Response(process.stdin as any).text() });",
    ].join("\n");
    const envs = await Promise.all(tokens.map((t) => execEnvelope(d, { source, env: { OWN_TOKEN: t }, stdin: `in ${t}` })));
    envs.forEach((env, i) => {
      const t = tokens[i]!;
      expect(env).toMatchObject({ ok: true, stdout: `${t}\n`, stderr: `err ${t}\n`, result: { echoed: t, stdin: `in ${t}` } });
      expect(env.calls).toHaveLength(1);
    });
    expect(new Set(envs.map((e) => e.runId)).size).toBe(20);
  });
});

describe.concurrent("long-lived responses are not cut off", () => {
  // Bun closes a connection after 10 s without bytes unless told otherwise; a regression shows as a
  // stream that ends at ~10 s with no end frame, and an event stream that never sees a keep-alive
  test("a run that prints nothing for 14 s still streams its end", async () => {
    const frames: Array<Record<string, unknown>> = [];
    const res = await d.fetch("/v1/exec", { method: "POST", headers: { accept: "application/x-ndjson" }, body: JSON.stringify({ source: 'await new Promise((r) => setTimeout(r, 14_000)); console.log("awake")' }) });
    await readLines(res, (line) => void frames.push(JSON.parse(line)));
    expect(frames.filter((f) => f.type === "stdout").map((f) => f.data)).toEqual(["awake\n"]);
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
  }, 30_000);

  test("an idle event stream gets a keep-alive comment after 15 s and stays open", async () => {
    const t0 = performance.now();
    const seen = await sse(d, "/v1/events?kinds=tools.changed", (m) => m.some((x) => x.comment === "keep-alive"), {}, 25_000);
    expect(performance.now() - t0).toBeGreaterThan(14_000);
    expect(seen.filter((m) => m.event !== undefined)).toEqual([]);
  }, 30_000);
});

describe("the shared pool", () => {
  test("one upstream server serves every run: it is started once, not per run", async () => {
    await execEnvelope(d, { source: 'await fake.echo({ message: "1" })' });
    const { runId: last } = await execEnvelope(d, { source: 'await fake.echo({ message: "2" })' });
    // everything this daemon published so far (well under the history size), up to the last run's end
    const seen = await sse(d, "/v1/events?since=0&kinds=server,script.finished", (m) => events(m).some((e) => e.event === "script.finished" && e.data.data.runId === last));
    const evs = events(seen);
    expect(evs.filter((e) => e.event === "script.finished").length).toBeGreaterThan(2);
    // a pool per run would start it once per run
    expect(evs.filter((e) => e.event === "server.started")).toHaveLength(1);
  });
});

describe("idle servers and shutdown (a daemon of their own)", () => {
  test("an upstream server nobody used for daemon.idleTimeout is stopped, and the next run starts it again", async () => {
    const own = sandbox();
    const marker = uniqueMarker("daemon-idle");
    writeConfig(own, ".mcpx.json", { mcpServers: { fake: fakeServer({ IDLE_MARK: marker }) } });
    const idle = await startDaemon(own, ["--daemon-idle-timeout", "1s"]);
    expect((await execEnvelope(idle, { source: 'await fake.echo({ message: "wake" })' })).ok).toBe(true);
    expect(processesWith(marker).length).toBeGreaterThan(0);
    const seen = await sse(idle, "/v1/events?since=0&kinds=server", (m) => events(m).some((e) => e.event === "server.stopped"), {}, 10_000);
    const stopped = events(seen).find((e) => e.event === "server.stopped")!;
    expect(stopped.data.data).toEqual({ server: "fake", reason: "idle" });
    expect(await leftoverProcesses(marker, 5000)).toEqual([]);
    expect((await execEnvelope(idle, { source: 'export default async () => await fake.echo({ message: "again" })' })).result).toBe("again");
    expect(await idle.stop()).toBe(0);
  });

  test("SIGTERM cancels runs in flight, ends their process groups and the pool, removes the socket and exits 0", async () => {
    const own = sandbox();
    const marker = uniqueMarker("daemon-sigterm");
    writeConfig(own, ".mcpx.json", { mcpServers: { fake: fakeServer({ SIGTERM_MARK: marker }) } });
    const daemon = await startDaemon(own);
    const abort = new AbortController();
    const frames: Array<Record<string, unknown>> = [];
    const res = await daemon.fetch("/v1/exec", {
      method: "POST",
      headers: { accept: "application/x-ndjson" },
      body: JSON.stringify({ source: `await fake.echo({ message: "up" });\n${SPAWN_AND_WAIT}`, env: { MCPX_E2E_MARK: marker } }),
      signal: abort.signal,
    });
    const reading = readLines(res, (line) => void frames.push(JSON.parse(line)));
    for (let waited = 0; !frames.some((f) => f.type === "stdout"); waited += 50) {
      if (waited > 20_000) throw new Error(`the run never printed: ${JSON.stringify(frames)}`);
      await Bun.sleep(50);
    }
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(3); // the fake server, the runtime, sleep
    expect(await daemon.stop()).toBe(0);
    await reading.catch(() => {});
    // the client saw its run end as interrupted, not a cut connection
    expect(frames.at(-2)).toMatchObject({ type: "error", error: { code: "INTERRUPTED" } });
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 130 });
    expect(await leftoverProcesses(marker, 5000)).toEqual([]);
    expect(existsSync(defaultSocket(own))).toBe(false);
    expect(daemon.stderr()).not.toContain("rror");
  });
});
