// What a server tells mcpx beside a call's answer reaches someone: its log messages
// (notifications/message) as log frames of the run that called it and on stderr with the server's
// name, the level asked of it with logging/setLevel; a call's progress as progress frames; and the
// end of a run (its timeout) cancels upstream what its calls still have in flight.

import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { recordedCalls, recordedCancels, readRecord } from "../../fixtures/servers/record.ts";
import { MCPX, everythingServer, fakeServer, sandbox } from "./harness.ts";
import { execFrames, startDaemon, stopDaemons } from "./daemon-support.ts";
import { writeFileSync } from "node:fs";
import {
  expectExit,
  fileExists,
  frameOrderProblems,
  leftoverProcesses,
  mcpx,
  parseFrames,
  scriptAwaits,
  serve,
  uniqueMarker,
  until,
  writeConfig,
} from "./support.ts";

afterAll(stopDaemons);

const sb = sandbox();
const record = join(sb.dir, "record.jsonl");
writeConfig(sb, ".mcpx.json", {
  mcpServers: {
    everything: everythingServer(),
    fake: fakeServer({ FAKE_MCP_LOG_TOOL: "1", FAKE_MCP_PROGRESS_TOOL: "1", FAKE_MCP_RECORD: record }),
  },
});
const KILL_AFTER_MS = 60_000;

describe("a server's log messages", () => {
  test("server-everything's simulated log reaches the run's stream as a log frame naming the server, in order", async () => {
    // at debug every one of its random levels is sent; the echo after it is answered after the log was written
    const script = 'await everything["toggle-simulated-logging"]({}); await everything.echo({ message: "after" })';
    const r = await mcpx(sb, ["exec", "--output", "stream", "--logging-level", "debug", script], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frameOrderProblems(frames)).toEqual([]);
    const logs = frames.filter((f) => f.type === "log");
    expect(logs[0]).toEqual({
      type: "log",
      level: expect.stringMatching(/^(debug|info|warn|error)$/),
      message: expect.stringMatching(/level/i),
      server: "everything",
    });
    const types = frames.map((f) => f.type);
    expect(types.indexOf("log")).toBeLessThan(types.lastIndexOf("call"));
  });

  test("the level is asked of the server with logging/setLevel: at warn an info message is never sent, an error one is, with its logger", async () => {
    const script = 'await fake.log({ level: "info", message: "quiet" }); await fake.log({ level: "error", message: "loud", logger: "db" })';
    const r = await mcpx(sb, ["exec", "--output", "stream", "--logging-level", "warn", script], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(parseFrames(r.stdout).filter((f) => f.type === "log")).toEqual([{ type: "log", level: "error", message: "loud", server: "fake", logger: "db" }]);
    expect(readRecord(record).filter((e) => "event" in e && e.event === "setLevel")).toContainEqual({
      event: "setLevel",
      level: "warning",
      pid: expect.any(Number),
    });
  });

  test("in text mode a run's server log is a stderr line in mcpx's format, with the server's name", async () => {
    const r = await mcpx(sb, ["exec", "--logging-format", "compact", 'await fake.log({ level: "warning", message: "disk low" })'], {
      killAfterMs: KILL_AFTER_MS,
    });
    expectExit(r, 0);
    expect(r.stderr).toContain("W fake: disk low\n");
  });

  test("mcpx call shows the server's log on stderr, and none below logging.level", async () => {
    const shown = await mcpx(sb, ["call", "fake.log", "level=notice", "message=started"], { killAfterMs: KILL_AFTER_MS });
    expectExit(shown, 0);
    expect(shown.stdout).toBe("logged\n");
    expect(shown.stderr).toContain("[info] fake: started\n");
    const hidden = await mcpx(sb, ["call", "--logging-level", "error", "fake.log", "level=notice", "message=started"], { killAfterMs: KILL_AFTER_MS });
    expectExit(hidden, 0);
    expect(hidden.stderr).not.toContain("started");
  });
});

describe("a call's progress", () => {
  test("server-everything's long-running operation streams a progress frame per step, before its call frame", async () => {
    const script = 'await everything["trigger-long-running-operation"]({ duration: 0.2, steps: 2 })';
    const r = await mcpx(sb, ["exec", "--output", "stream", script], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frameOrderProblems(frames)).toEqual([]);
    const tool = "trigger-long-running-operation";
    expect(frames.filter((f) => f.type === "progress" || f.type === "call").map(({ type, progress, total }) => ({ type, progress, total }))).toEqual([
      { type: "progress", progress: 1, total: 2 },
      { type: "progress", progress: 2, total: 2 },
      { type: "call", progress: undefined, total: undefined },
    ]);
    expect(frames.find((f) => f.type === "progress")).toMatchObject({ server: "everything", tool });
  });

  // util-linux `script` gives mcpx a terminal; its output is what the terminal showed
  test.skipIf(!Bun.which("script"))("mcpx call on a terminal asks for progress and shows it on the status line", async () => {
    // five steps of 300 ms: the line is drawn once work has gone on for 400 ms (lib/util/status-line.ts)
    const command = `${MCPX} call fake.progress steps=5 ms=300`;
    const r = Bun.spawn(["script", "-q", "-e", "-c", command, "/dev/null"], {
      cwd: sb.dir,
      env: { ...sb.env, TERM: "xterm" },
      stdin: "ignore",
      stdout: "pipe",
    });
    const [shown, code] = await Promise.all([new Response(r.stdout).text(), r.exited]);
    expect({ code, shown }).toMatchObject({ code: 0, shown: expect.stringMatching(/fake\.progress: \d+% step \d of 5/) });
    expect(shown).toContain("done");
    expect(recordedCalls(record, "progress").at(-1)).toHaveProperty("progressToken");
  });

  test("mcpx call without a terminal asks for no progress, and writes no status line", async () => {
    const r = await mcpx(sb, ["call", "fake.progress", "steps=2", "ms=1"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(r.stderr).toBe("");
    expect(recordedCalls(record, "progress").at(-1)).not.toHaveProperty("progressToken");
  });
});

describe("through mcpx serve", () => {
  test("mcpx_exec tells a client that asks for progress each step of a call, and each server log, by the server's name", async () => {
    const notes: string[] = [];
    // the SDK's client drops progress for a request it has already answered: the script ends only once
    // the client has the last note (serve-tools.test.ts does the same)
    const heard = join(sb.dir, `heard-loud-${process.pid}`);
    const source = [
      'await fake.progress({ steps: 2, ms: 1 }); await fake.log({ level: "error", message: "loud" });',
      scriptAwaits(fileExists(heard), "the client heard the log"),
    ].join("\n");
    const onprogress = (p: { message?: string }) => {
      notes.push(String(p.message));
      if (p.message === "fake: loud") writeFileSync(heard, "");
    };
    const own = await serve(sb, { MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify([{ read: [heard] }]), MCPX_EXEC_SANDBOX_ENGINE: "deno" });
    try {
      const r = (await own.client.callTool({ name: "mcpx_exec", arguments: { source } }, undefined, { onprogress })) as { isError?: boolean };
      expect(r.isError).toBe(false);
      expect(notes).toEqual([
        "started",
        "fake.progress: 50% step 1 of 2",
        "fake.progress: 100% step 2 of 2",
        "called fake.progress",
        "fake: loud",
        "called fake.log",
      ]);
    } finally {
      await own.close();
    }
  });
});

describe("a run that ends cancels its calls upstream", () => {
  /** a sandbox whose fake server hangs in `slow` and records what it receives */
  function hangingServer(label: string) {
    const own = sandbox();
    const hung = join(own.dir, "hung.jsonl");
    const marker = uniqueMarker(label);
    writeConfig(own, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_HANG_TOOL: "slow", FAKE_MCP_RECORD: hung, MARKER: marker }) } });
    return { own, hung, marker };
  }

  test("exec --timeout while a call hangs: exit 124, and the server was told the call is cancelled", async () => {
    const { own, hung, marker } = hangingServer("exec-timeout-cancel");
    const r = await mcpx(own, ["exec", "--timeout", "3s", "await fake.slow({ ms: 1 })"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 124);
    expect(recordedCalls(hung, "slow")).toHaveLength(1);
    await until(() => recordedCancels(hung).length > 0, "the server never recorded a cancellation");
    expect(recordedCancels(hung)).toEqual([{ event: "cancelled", tool: "slow", reason: "the run ended", pid: expect.any(Number) }]);
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  test("Ctrl-C (SIGINT) to mcpx exec while a call hangs: exit 130, and the server was told the call is cancelled", async () => {
    const { own, hung, marker } = hangingServer("exec-sigint-cancel");
    const proc = Bun.spawn([MCPX, "exec", "await fake.slow({ ms: 1 })"], { cwd: own.dir, env: own.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      await until(() => recordedCalls(hung, "slow").length > 0, "the call never reached the server");
      proc.kill("SIGINT");
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toMatchObject({ code: 130 });
      await until(() => recordedCancels(hung).length > 0, "the server never recorded a cancellation");
      expect(recordedCancels(hung).map((c) => c.tool)).toEqual(["slow"]);
      expect(await leftoverProcesses(marker)).toEqual([]);
    } finally {
      proc.kill("SIGKILL");
    }
  });

  test("a daemon's run that times out while a call hangs tells the server the call is cancelled, and the server stays", async () => {
    const { own, hung, marker } = hangingServer("daemon-run-cancel");
    const d = await startDaemon(own);
    // 3s: the server's start must not use up the run's time, so the call reaches the server first
    const frames = await execFrames(d, { source: "await fake.slow({ ms: 1 })", timeout: "3s" });
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 124 });
    expect(recordedCalls(hung, "slow")).toHaveLength(1);
    // the cancellation is sent as the run ends; the server writes it down in its own time
    await until(() => recordedCancels(hung).length > 0, "the server never recorded a cancellation");
    expect(recordedCancels(hung)).toEqual([{ event: "cancelled", tool: "slow", reason: "the run ended", pid: expect.any(Number) }]);
    // the pool keeps the server: the next run's call is answered by the same process
    const next = await execFrames(d, { source: 'return await fake.echo({ message: "still here" })' });
    expect(next.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
    expect(new Set(readRecord(hung).map((e) => e.pid)).size).toBe(1);
    await d.stop();
    expect(await leftoverProcesses(marker)).toEqual([]);
  });
});
