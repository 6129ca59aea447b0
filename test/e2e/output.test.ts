// The three renderings of one run's frame stream (design §3, §4): text by default (the script's
// stdout on stdout, everything else on stderr), one JSON envelope with --json, NDJSON frames with
// --output stream, checked against the order rules by the local check and by the product's own guard
// (lib/exec/frame-order.ts).

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, type Frame, frameOrderProblems, leftoverProcesses, mcpx, parseFrames, productGuardProblems, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
sb.write(
  "report.ts",
  [
    'console.log("out line");',
    'console.error("err line");',
    'log("a note");',
    'log.warn("a warning");',
    "emit({ n: 1 });",
    "export default async function () {",
    '  const echoed = await fake.echo({ message: "e" });',
    "  return { done: true, echoed };",
    "}",
    "",
  ].join("\n"),
);

const ENVELOPE_KEYS = ["ok", "exitCode", "result", "emits", "logs", "stdout", "stderr", "calls", "durationMs", "runId", "error"];

/** both order checks over one stream: the local restatement and the product's guard */
function expectWellOrdered(frames: Frame[]): void {
  expect(frameOrderProblems(frames)).toEqual([]);
  expect(productGuardProblems(frames)).toEqual([]);
}

/** consecutive stdout frames joined, so a write split across pipe reads compares as one */
function bodyOf(frames: Frame[]): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const f of frames) {
    const item: [string, unknown] | undefined =
      f.type === "stdout" || f.type === "stderr" ? [f.type, f.data] : f.type === "log" ? ["log", f.message] : f.type === "emit" ? ["emit", f.value] : undefined;
    if (!item) continue;
    const last = out[out.length - 1];
    if (last && (item[0] === "stdout" || item[0] === "stderr") && last[0] === item[0]) last[1] = String(last[1]) + String(item[1]);
    else out.push(item);
  }
  return out;
}

describe.concurrent("--json", () => {
  test("--json prints one envelope with ok, exitCode, result, emits, logs, stdout, stderr, calls, durationMs, runId and error", async () => {
    const r = await mcpx(sb, ["run", "report.ts", "--json"]);
    expectExit(r, 0);
    const env = JSON.parse(r.stdout); // the whole of stdout is one JSON document
    expect(Object.keys(env)).toEqual(expect.arrayContaining(ENVELOPE_KEYS));
    expect(env.ok).toBe(true);
    expect(env.exitCode).toBe(0);
    expect(env.result).toEqual({ done: true, echoed: "e" });
    expect(env.emits).toEqual([{ n: 1 }]);
    expect(env.logs).toEqual([
      { level: "info", message: "a note" },
      { level: "warn", message: "a warning" },
    ]);
    expect(env.stdout).toBe("out line\n");
    expect(env.stderr).toBe("err line\n");
    expect(env.calls.length).toBe(1);
    expect(env.calls[0]).toMatchObject({ server: "fake", tool: "echo", ok: true });
    expect(typeof env.durationMs).toBe("number");
    expect(typeof env.runId).toBe("string");
    expect(env.runId.length).toBeGreaterThan(0);
    expect(env.error).toBeNull();
    // nothing else reaches the terminal: the envelope carries it all
    expect(r.stderr).toBe("");
  });

  test("--json on a failing run reports the error, the exit code and everything produced before it", async () => {
    const r = await mcpx(sb, ["exec", "--json", 'console.log("before"); log("noted"); throw new Error("late failure")']);
    expectExit(r, 1);
    const env = JSON.parse(r.stdout);
    expect(env.ok).toBe(false);
    expect(env.exitCode).toBe(1);
    expect(env.error.message).toBe("late failure");
    expect(env.stdout).toBe("before\n");
    expect(env.logs).toEqual([{ level: "info", message: "noted" }]);
  });

  test("--json carries the script's own exit code", async () => {
    const r = await mcpx(sb, ["exec", "--json", 'console.log("bye"); process.exit(3)']);
    expectExit(r, 3);
    const env = JSON.parse(r.stdout);
    expect(env.exitCode).toBe(3);
    expect(env.ok).toBe(false);
    expect(env.stdout).toBe("bye\n");
  });

  test("--output json is the same as --json, and --json with --output stream is a usage error (exit 2)", async () => {
    const same = await mcpx(sb, ["exec", "--output", "json", 'console.log("x")']);
    expect(JSON.parse(same.stdout)).toMatchObject({ ok: true, exitCode: 0, stdout: "x\n" });
    const clash = await mcpx(sb, ["exec", "--json", "--output", "stream", 'console.log("x")']);
    expectExit(clash, 2);
    expect(clash.stdout).toBe("");
  });
});

describe.concurrent("--output stream", () => {
  test("--output stream prints NDJSON frames from start to end with exactly one result before end", async () => {
    const r = await mcpx(sb, ["run", "report.ts", "--output", "stream"]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frames[0]!.type).toBe("start");
    expect(typeof frames[0]!.runId).toBe("string");
    expect(frames[frames.length - 1]).toMatchObject({ type: "end", exitCode: 0 });
    expect(frames.filter((f) => f.type === "result" || f.type === "error").map((f) => f.type)).toEqual(["result"]);
    expect(frames.find((f) => f.type === "result")!.value).toEqual({ done: true, echoed: "e" });
    expectWellOrdered(frames);
  });

  test("call frames carry server, tool, argsHash, durationMs and ok", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--output",
      "stream",
      'await fake.echo({ message: "a" }); await fake.echo({ message: "a" }); await fake.echo({ ' +
        'message: "b" }); await fake.get_sum({ values: [1] }); try { await fake.fail({}) } catch {}',
    ]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    const calls = frames.filter((f) => f.type === "call");
    expect(calls.map((c) => [c.server, c.tool, c.ok])).toEqual([
      ["fake", "echo", true],
      ["fake", "echo", true],
      ["fake", "echo", true],
      ["fake", "get-sum", true],
      ["fake", "fail", false],
    ]);
    for (const c of calls) {
      expect(typeof c.argsHash).toBe("string");
      expect(c.argsHash as string).toMatch(/^[0-9a-f]+$/);
      expect(typeof c.durationMs).toBe("number");
    }
    // the same arguments hash the same; different arguments do not
    expect(calls[0]!.argsHash).toBe(calls[1]!.argsHash);
    expect(calls[0]!.argsHash).not.toBe(calls[2]!.argsHash);
    expectWellOrdered(frames);
  });

  test("a failing run streams exactly one error frame before end, and end carries exit code 1", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", 'console.log("partial"); throw new Error("streamed failure")']);
    expectExit(r, 1);
    const frames = parseFrames(r.stdout);
    expect(frames.filter((f) => f.type === "result" || f.type === "error").map((f) => f.type)).toEqual(["error"]);
    expect((frames.find((f) => f.type === "error")!.error as { message: string }).message).toBe("streamed failure");
    expect(frames[frames.length - 1]).toMatchObject({ type: "end", exitCode: 1 });
    expect(bodyOf(frames)).toEqual([["stdout", "partial\n"]]);
    expectWellOrdered(frames);
  });

  test("stdout, stderr, logs and emits keep the order the script produced them in", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--output",
      "stream",
      'console.log("s1"); log("l1"); console.error("e1"); emit({ k: 1 }); process.stdout.write("s2\\n"); log.error("l2"); console.log("s3")',
    ]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(bodyOf(frames)).toEqual([
      ["stdout", "s1\n"],
      ["log", "l1"],
      ["stderr", "e1\n"],
      ["emit", { k: 1 }],
      ["stdout", "s2\n"],
      ["log", "l2"],
      ["stdout", "s3\n"],
    ]);
    expectWellOrdered(frames);
  });

  test("inline source phases produce no hook frames: what they print arrives as stdout and stderr in order", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--output",
      "stream",
      "--before",
      'console.error("[before]")',
      "--on-success",
      'console.log("[onSuccess]")',
      "--suffix",
      'console.error("[suffix]")',
      'console.log("[body]")',
    ]);
    expectExit(r, 0);
    const frames = parseFrames(r.stdout);
    expect(frames.filter((f) => f.type === "hook")).toEqual([]);
    expect(bodyOf(frames)).toEqual([
      ["stderr", "[before]\n"],
      ["stdout", "[body]\n[onSuccess]\n"],
      ["stderr", "[suffix]\n"],
    ]);
    expectWellOrdered(frames);
  });

  test("an unknown --output mode is a usage error (exit 2) naming the accepted ones", async () => {
    const r = await mcpx(sb, ["exec", "--output", "yaml", 'console.log("x")']);
    expectExit(r, 2);
    expect(r.stderr).toContain("yaml");
    expect(r.stderr).toContain("stream");
    expect(r.stdout).toBe("");
  });
});

// a guard that accepts everything would make every order assertion above vacuous
test("both order checks reject a stream with a frame after its result", () => {
  const bad: Frame[] = [
    { type: "start", runId: "r" },
    { type: "result", value: 1 },
    { type: "stdout", data: "late\n" },
    { type: "end", exitCode: 0, durationMs: 1 },
  ];
  expect(frameOrderProblems(bad)).toEqual(["a stdout frame follows the final result"]);
  expect(productGuardProblems(bad)).toEqual([expect.stringContaining("frame 2 (stdout)")]);
});

describe.concurrent("text output", () => {
  test("by default the script's stdout goes to stdout and logs, emits and its stderr go to stderr", async () => {
    const r = await mcpx(sb, ["exec", 'console.log("to stdout"); console.error("to stderr"); log("a log line"); emit({ emitted: true })']);
    expectExit(r, 0);
    expect(r.stdout).toBe("to stdout\n");
    expect(r.stderr).toContain("to stderr");
    expect(r.stderr).toContain("a log line");
    expect(r.stderr).toContain('"emitted"');
  });

  test("a run's returned value follows the script's own stdout", async () => {
    const r = await mcpx(sb, ["run", "report.ts"]);
    expectExit(r, 0);
    const [first, ...rest] = r.stdout.split("\n");
    expect(first).toBe("out line");
    expect(JSON.parse(rest.join("\n"))).toEqual({ done: true, echoed: "e" });
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
