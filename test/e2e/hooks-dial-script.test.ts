// The effect dial at the script point, through the binary: every level at every phase of `script`
// where the points table lets it act. A refused script.before means the script never starts (exit
// 77, documented in docs/exit-codes.md); a refused onSuccess turns success into failure; apply
// replaces the args (before) or the result (onSuccess) or recovers (onError); run "retry" at
// onError runs the script again within hooks.retryBudget.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./harness.ts";
import { execStream, execText, expectExit, finalFrame, hookSandbox, onlyHookFrame, recordedStarts, recordPath, say, stdoutOf } from "./hooks-support.ts";

const sb = hookSandbox();

/** one hook on script.PHASE answering `answer`, declared with `effect` */
const hook = (name: string, phase: string, answer: unknown, effect: string) => ({ name, on: "script", phase, run: say(answer), effect });

let n = 0;
/** a file the script appends a line to each time its body runs */
const runsFile = () => join(sb.dir, `runs-${++n}.txt`);
const countingSnippet = (file: string, body: string) =>
  `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(file)}, "ran\\n");\n${body}`;
const runsIn = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);

const SUCCEEDS = 'export default () => "the value"';
const THROWS = 'throw new Error("the script broke")';

describe.concurrent("advise at every script phase", () => {
  for (const [phase, snippet, code] of [
    ["before", SUCCEEDS, 0],
    ["onSuccess", SUCCEEDS, 0],
    ["onError", THROWS, 1],
    ["suffix", SUCCEEDS, 0],
  ] as const) {
    test(`advice from a script.${phase} hook is shown on stderr and carried in its hook frame, and changes nothing`, async () => {
      const name = `advise-script-${phase}`;
      const text = `a note from script.${phase}`;
      const hooks = [hook(name, phase, { advise: text }, "advise")];
      const [plain, stream] = await Promise.all([execText(sb, snippet, { hooks }), execStream(sb, snippet, { hooks })]);
      expectExit(plain, code);
      expect(plain.stderr).toContain(`hook ${name}`);
      expect(plain.stderr).toContain(text);
      expectExit(stream, code);
      expect(onlyHookFrame(stream.frames, name)).toMatchObject({ on: "script", phase, action: "run", effect: "advise", changed: false, advice: [text] });
      // an onError hook is a hook, not a handler: the error still propagates
      expect(finalFrame(stream.frames)).toMatchObject(
        code === 0 ? { type: "result", value: "the value" } : { type: "error", error: { message: "the script broke" } },
      );
    });
  }
});

describe.concurrent("script.before", () => {
  test("a refusing script.before hook means the script never starts: exit 77, an error naming the hook and its reason, and no server started", async () => {
    const file = runsFile();
    const record = recordPath(sb);
    const hooks = [hook("no-scripts-today", "before", { refuse: "maintenance window" }, "refuse")];
    const snippet = countingSnippet(file, 'console.log(await fake.echo({ message: "hi" }))');
    const [stream, plain] = await Promise.all([execStream(sb, snippet, { hooks, record }), execText(sb, snippet, { hooks, record })]);
    expectExit(stream, 77);
    expectExit(plain, 77);
    expect(runsIn(file)).toBe(0);
    expect(recordedStarts(record)).toEqual([]);
    expect(stdoutOf(stream.frames)).toBe("");
    const error = finalFrame(stream.frames) as { type: string; error: { message: string; code?: string } };
    expect(error.type).toBe("error");
    expect(error.error.message).toContain("no-scripts-today");
    expect(error.error.message).toContain("maintenance window");
    expect(plain.stderr).toContain("no-scripts-today");
    expect(plain.stderr).toContain("maintenance window");
  });

  test("exit code 77 (a script refused by a script.before hook) is documented in docs/exit-codes.md", () => {
    const doc = readFileSync(join(ROOT, "docs/exit-codes.md"), "utf8");
    const row = doc.split("\n").find((l) => /^\|\s*77\s*\|/.test(l));
    expect(row ?? "docs/exit-codes.md has no row for 77").toMatch(/refus|hook/i);
  });

  test("an asking script.before hook with nobody at a terminal refuses the run: exit 77 and the script never starts", async () => {
    const file = runsFile();
    const r = await execStream(sb, countingSnippet(file, SUCCEEDS), { hooks: [hook("ask-to-start", "before", { ask: "start the report?" }, "ask")] });
    expectExit(r, 77);
    expect(runsIn(file)).toBe(0);
    expect(JSON.stringify(finalFrame(r.frames))).toContain("ask-to-start");
  });

  test("a proposing script.before hook's args are reported in its frame and the script gets the original args", async () => {
    const r = await execStream(sb, "export default (args: string[]) => args", {
      args: ["a", "b"],
      hooks: [hook("propose-args", "before", { propose: ["x"] }, "propose")],
    });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "propose-args")).toMatchObject({ changed: false, proposed: ["x"] });
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: ["a", "b"] });
  });

  test("an applying script.before hook replaces the script's args and its frame carries the original args", async () => {
    const r = await execStream(sb, "export default (args: string[]) => args", {
      args: ["a", "b"],
      hooks: [hook("rewrite-args", "before", { apply: ["x", "y"] }, "apply")],
    });
    expectExit(r, 0);
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: ["x", "y"] });
    expect(onlyHookFrame(r.frames, "rewrite-args")).toMatchObject({ effect: "apply", changed: true, original: ["a", "b"] });
  });
});

describe.concurrent("script.onSuccess", () => {
  test("a refusing script.onSuccess hook turns the success into a failure: exit 1 and an error naming the hook", async () => {
    const file = runsFile();
    const r = await execStream(sb, countingSnippet(file, SUCCEEDS), { hooks: [hook("veto-run", "onSuccess", { refuse: "the report is empty" }, "refuse")] });
    expectExit(r, 1);
    // the script did run; its success is what was refused
    expect(runsIn(file)).toBe(1);
    const error = finalFrame(r.frames) as { type: string; error: { message: string } };
    expect(error.type).toBe("error");
    expect(error.error.message).toContain("veto-run");
    expect(error.error.message).toContain("the report is empty");
  });

  test("an asking script.onSuccess hook with nobody at a terminal turns the success into a failure", async () => {
    const r = await execStream(sb, SUCCEEDS, { hooks: [hook("ask-keep", "onSuccess", { ask: "keep it?" }, "ask")] });
    expectExit(r, 1);
    expect(finalFrame(r.frames)).toMatchObject({ type: "error" });
    expect(JSON.stringify(finalFrame(r.frames))).toContain("ask-keep");
  });

  test("a proposing script.onSuccess hook's value is reported in its frame and the result is unchanged", async () => {
    const r = await execStream(sb, SUCCEEDS, { hooks: [hook("propose-value", "onSuccess", { propose: "a better value" }, "propose")] });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "propose-value")).toMatchObject({ changed: false, proposed: "a better value" });
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: "the value" });
  });

  test("an applying script.onSuccess hook replaces the result and its frame carries the original", async () => {
    const r = await execStream(sb, SUCCEEDS, { hooks: [hook("rewrite-value", "onSuccess", { apply: { replaced: true } }, "apply")] });
    expectExit(r, 0);
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: { replaced: true } });
    expect(onlyHookFrame(r.frames, "rewrite-value")).toMatchObject({ changed: true, original: "the value" });
  });
});

describe.concurrent("script.onError", () => {
  test("a proposing script.onError hook's recovery is reported in its frame and the error still propagates", async () => {
    const r = await execStream(sb, THROWS, { hooks: [hook("propose-recovery", "onError", { propose: "fallback" }, "propose")] });
    expectExit(r, 1);
    expect(onlyHookFrame(r.frames, "propose-recovery")).toMatchObject({ changed: false, proposed: "fallback" });
    expect(finalFrame(r.frames)).toMatchObject({ type: "error", error: { message: "the script broke" } });
  });

  test("an applying script.onError hook recovers the run with its value: a result frame and exit 0", async () => {
    const r = await execStream(sb, THROWS, { hooks: [hook("recover-run", "onError", { apply: { recovered: true } }, "apply")] });
    expectExit(r, 0);
    expect(finalFrame(r.frames)).toMatchObject({ type: "result", value: { recovered: true } });
    expect(onlyHookFrame(r.frames, "recover-run")).toMatchObject({ effect: "apply", changed: true });
  });

  test("a script.onError hook that always says retry, with hooks.retryBudget 2, runs the script 3 times and the error still propagates", async () => {
    const file = runsFile();
    const r = await execStream(sb, countingSnippet(file, THROWS), {
      hooks: [hook("retry-run", "onError", { run: "retry" }, "run")],
      env: { MCPX_HOOKS_RETRY_BUDGET: "2" },
    });
    expectExit(r, 1);
    // a budget that reset on every retry would never stop; an off-by-one gives 2 or 4
    expect(runsIn(file)).toBe(3);
    expect(finalFrame(r.frames)).toMatchObject({ type: "error", error: { message: "the script broke" } });
  });

  test("with hooks.retryBudget 0 the same hook runs the script exactly once", async () => {
    const file = runsFile();
    const r = await execStream(sb, countingSnippet(file, THROWS), {
      hooks: [hook("retry-run-0", "onError", { run: "retry" }, "run")],
      env: { MCPX_HOOKS_RETRY_BUDGET: "0" },
    });
    expectExit(r, 1);
    expect(runsIn(file)).toBe(1);
  });
});
