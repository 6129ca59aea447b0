// A tool the server lists with execution.taskSupport "required" is called as a task: created by a
// tools/call carrying `task`, followed with tasks/get, its status shown as progress, its tasks/result
// the call's result as a plain call's would be; the call's timeout, the run's end and Ctrl-C cancel
// it upstream with tasks/cancel. From every door: mcpx call, exec, the daemon and mcpx serve.
// fixtures/servers/task-server.ts records every task request it receives.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { payload, sha256 } from "../../fixtures/servers/payload.ts";
import { exitCodeOf } from "../../lib/errors/codes.ts";
import { BUN, MCPX, ROOT, everythingServer, sandbox } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { execFrames, startDaemon, stopDaemons } from "./daemon-support.ts";
import { expectExit, frameOrderProblems, mcpx, parseFrames, serve, until, writeConfig } from "./support.ts";

afterAll(stopDaemons);

const TASK_SERVER = join(ROOT, "fixtures/servers/task-server.ts");
const KILL_AFTER_MS = 60_000;

type Entry = { event?: string; method?: string; tool?: string; task?: boolean; taskId?: string; pid: number };

function recorded(file: string): Entry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Entry);
}

/** a sandbox with the task server (its own record) and server-everything; `hooks` go into the same config */
function taskSandbox(hooks: unknown[] = []) {
  const sb = sandbox();
  const record = join(sb.dir, "tasks.jsonl");
  writeConfig(sb, ".mcpx.json", {
    mcpServers: { tasks: { command: BUN, args: [TASK_SERVER], env: { TASK_MCP_RECORD: record } }, everything: everythingServer() },
    ...(hooks.length ? { hooks } : {}),
  });
  return { sb, record };
}

/** the taskIds the server was asked to cancel */
const cancels = (record: string) => recorded(record).filter((e) => e.method === "tasks/cancel");

describe("server-everything's simulate-research-query", () => {
  const { sb } = taskSandbox();

  test("mcpx ls lists it and mcpx call returns its report", async () => {
    const ls = await mcpx(sb, ["ls", "everything"], { killAfterMs: KILL_AFTER_MS });
    expectExit(ls, 0);
    expect(ls.stdout).toContain("simulate-research-query");
    const r = await mcpx(sb, ["call", "everything.simulate-research-query", "topic=tides"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(r.stdout).toStartWith("# Research Report: tides\n");
  });

  test("in a script its stages stream as progress frames before its call frame", async () => {
    const script = 'return (await everything["simulate-research-query"]({ topic: "tides" })).split("\\n")[0]';
    const r = await mcpx(sb, ["exec", "--output", "stream", script], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frameOrderProblems(frames)).toEqual([]);
    const progress = frames.filter((f) => f.type === "progress");
    expect(progress.length).toBeGreaterThan(0);
    const stages = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."];
    for (const p of progress) expect(p).toMatchObject({ server: "everything", tool: "simulate-research-query" });
    expect(progress.filter((p) => !stages.includes(String(p.message)))).toEqual([]);
    const types = frames.map((f) => f.type);
    expect(types.lastIndexOf("progress")).toBeLessThan(types.indexOf("call"));
    expect(frames.find((f) => f.type === "result")).toEqual({ type: "result", value: "# Research Report: tides" });
  });
});

describe("a task's result is the tool's result, as a plain call's", () => {
  const { sb, record } = taskSandbox();

  test("its structured content comes back, and the server saw a task followed to its result", async () => {
    const r = await mcpx(sb, ["call", "tasks.research", "topic=moss", "steps=2"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ topic: "moss", steps: 2 });
    const asked = recorded(record).filter((e) => e.method !== undefined);
    expect(asked[0]).toMatchObject({ method: "tools/call", tool: "research", task: true });
    expect(asked.filter((e) => e.method === "tasks/get").length).toBeGreaterThan(0);
    expect(asked.at(-1)).toMatchObject({ method: "tasks/result" });
    expect(cancels(record)).toEqual([]);
  });

  test("its status messages are progress frames, in the order the server set them", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", 'return await tasks.research({ topic: "moss", steps: 3 })'], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frameOrderProblems(frames)).toEqual([]);
    const said = frames.filter((f) => f.type === "progress").map((f) => f.message);
    // polling may miss a status the server replaced before the next tasks/get; never reorders them
    const order = ["working", "step 1 of 3", "step 2 of 3", "step 3 of 3"];
    expect(said.length).toBeGreaterThan(0);
    const at = said.map((m) => order.indexOf(String(m)));
    expect(at).not.toContain(-1);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(frames.find((f) => f.type === "result")).toEqual({ type: "result", value: { topic: "moss", steps: 3 } });
  });

  test("a script's fn.raw gets the result as the tool gave it, without the key that names the task", async () => {
    const r = await mcpx(sb, ["exec", "--json", 'return await tasks.research.raw({ topic: "moss", steps: 1 })'], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).result).toEqual({ content: [{ type: "text", text: "report on moss" }], structuredContent: { topic: "moss", steps: 1 } });
  });

  // util-linux `script` gives mcpx a terminal; its output is what the terminal showed
  test.skipIf(!Bun.which("script"))("mcpx call on a terminal shows the task's status on the status line", async () => {
    // steps of 300 ms: the line is drawn once work has gone on for 400 ms (lib/util/status-line.ts)
    const own = sandbox();
    writeConfig(own, ".mcpx.json", { mcpServers: { tasks: { command: BUN, args: [TASK_SERVER], env: { TASK_MCP_STEP_MS: "300" } } } });
    const r = Bun.spawn(["script", "-q", "-e", "-c", `${MCPX} call tasks.research topic=moss steps=4`, "/dev/null"], {
      cwd: own.dir,
      env: { ...own.env, TERM: "xterm" },
      stdin: "ignore",
      stdout: "pipe",
    });
    const [shown, code] = await Promise.all([new Response(r.stdout).text(), r.exited]);
    expect({ code, shown }).toMatchObject({ code: 0, shown: expect.stringMatching(/tasks\.research: \d+ step \d of 4/) });
  });

  test("a result that breaks the tool's output schema fails the call as a plain call's does", async () => {
    const r = await mcpx(sb, ["call", "tasks.wrong_shape"], { killAfterMs: KILL_AFTER_MS });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Structured content does not match the tool's output schema");
  });

  test("a failed task is the tool's error, with its text", async () => {
    const r = await mcpx(sb, ["call", "tasks.fail"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, exitCodeOf("TOOL_ERROR"));
    expect(r.stderr).toContain("it broke");
  });

  test("a result of about 1 MB comes through intact", async () => {
    const size = 1_000_000;
    const r = await mcpx(sb, ["call", "tasks.big", `size=${size}`], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(r.stdout.length).toBe(size + 1);
    expect(sha256(r.stdout.slice(0, -1))).toBe(sha256(payload(size)));
  });

  test("a task that asks for input is answered by mcpx's elicitation handling, or declined, and never hangs", async () => {
    const r = await mcpx(sb, ["call", "tasks.ask"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(r.stdout).toStartWith("asked: ");
  });

  test("a tool that only allows tasks (optional) is called plainly", async () => {
    const r = await mcpx(sb, ["call", "tasks.maybe"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(r.stdout).toBe("ran\n");
    expect(
      recorded(record)
        .filter((e) => e.method === "tools/call" && e.tool === "maybe")
        .map((e) => e.task),
    ).toEqual([false]);
  });

  test("a call.onSuccess hook is handed the task's result", async () => {
    const own = sandbox();
    const saved = join(own.dir, "payload.json");
    writeConfig(own, ".mcpx.json", {
      mcpServers: { tasks: { command: BUN, args: [TASK_SERVER] } },
      hooks: [{ name: "see-result", on: "call", phase: "onSuccess", run: say("", saved) }],
    });
    const r = await mcpx(own, ["call", "tasks.research", "topic=fern", "steps=1"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 0);
    expect(JSON.parse(readFileSync(saved, "utf8")).result).toMatchObject({ structuredContent: { topic: "fern", steps: 1 } });
  });
});

describe("a task is cancelled upstream with the call", () => {
  test("past mcp.callTimeout: the call fails as a timeout, and the server got tasks/cancel for the task", async () => {
    const { sb, record } = taskSandbox();
    const r = await mcpx(sb, ["call", "--mcp-call-timeout", "1s", "tasks.hang"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, exitCodeOf("UPSTREAM_TIMEOUT"));
    expect(r.stderr).toContain("mcp.callTimeout");
    const created = recorded(record).find((e) => e.method === "tasks/get");
    expect(created).toBeDefined();
    await until(() => cancels(record).length > 0, "the server never recorded tasks/cancel");
    expect(cancels(record).map((e) => e.taskId)).toEqual([created!.taskId]);
  });

  test("exec --timeout while a task runs: exit 124, and the server got tasks/cancel", async () => {
    const { sb, record } = taskSandbox();
    // the server is started by a first call, so its start does not use up the run's time before the task exists
    const r = await mcpx(sb, ["exec", "--timeout", "5s", "await tasks.maybe({}); await tasks.hang({})"], { killAfterMs: KILL_AFTER_MS });
    expectExit(r, 124);
    expect(
      recorded(record)
        .filter((e) => e.method === "tools/call")
        .map((e) => e.tool),
    ).toEqual(["maybe", "hang"]);
    await until(() => cancels(record).length > 0, "the server never recorded tasks/cancel");
    expect(cancels(record)).toHaveLength(1);
  });

  test("Ctrl-C (SIGINT) to mcpx call while a task runs: exit 130, and the server got tasks/cancel", async () => {
    const { sb, record } = taskSandbox();
    const proc = Bun.spawn([MCPX, "call", "tasks.hang"], { cwd: sb.dir, env: sb.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      await until(() => recorded(record).some((e) => e.method === "tasks/get"), "the task never reached the server");
      proc.kill("SIGINT");
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toMatchObject({ code: exitCodeOf("INTERRUPTED") });
      await until(() => cancels(record).length > 0, "the server never recorded tasks/cancel");
      expect(cancels(record)).toHaveLength(1);
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe("through the daemon and mcpx serve", () => {
  test("a daemon's run calls a task tool, and a run that times out cancels its task, the server kept", async () => {
    const { sb, record } = taskSandbox();
    const d = await startDaemon(sb);
    const frames = await execFrames(d, { source: 'return await tasks.research({ topic: "kelp", steps: 1 })' });
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
    expect(frames.find((f) => f.type === "result")).toEqual({ type: "result", value: { topic: "kelp", steps: 1 } });
    const ended = await execFrames(d, { source: "await tasks.hang({})", timeout: "3s" });
    expect(ended.at(-1)).toMatchObject({ type: "end", exitCode: 124 });
    await until(() => cancels(record).length > 0, "the server never recorded tasks/cancel");
    expect(new Set(recorded(record).map((e) => e.pid)).size).toBe(1);
    await d.stop();
  });

  test("exec --remote prints the task's result as the local run does", async () => {
    const { sb } = taskSandbox();
    await startDaemon(sb);
    const argv = (remote: string[]) => ["exec", ...remote, "--json", 'return await tasks.research({ topic: "reef", steps: 1 })'];
    const [local, remote] = await Promise.all([
      mcpx(sb, argv([]), { killAfterMs: KILL_AFTER_MS }),
      mcpx(sb, argv(["--remote"]), { killAfterMs: KILL_AFTER_MS }),
    ]);
    expectExit(remote, 0);
    expect(JSON.parse(remote.stdout).result).toEqual({ topic: "reef", steps: 1 });
    expect(JSON.parse(remote.stdout).result).toEqual(JSON.parse(local.stdout).result);
  });

  test("mcpx serve's mcpx_call returns the task's result as it came", async () => {
    const { sb } = taskSandbox();
    const own = await serve(sb);
    try {
      const r = (await own.client.callTool({ name: "mcpx_call", arguments: { server: "tasks", tool: "research", args: { topic: "dune", steps: 1 } } })) as {
        isError?: boolean;
        structuredContent?: unknown;
        content?: Array<{ type: string; text?: string }>;
      };
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual({ topic: "dune", steps: 1 });
      expect(r.content?.[0]?.text).toBe("report on dune");
    } finally {
      await own.close();
    }
  });
});
