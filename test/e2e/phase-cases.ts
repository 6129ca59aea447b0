// The launcher's phase-order contract (design §2, "What it must show"), written once and run
// per runtime: phases.test.ts runs it on the embedded Bun, deno.test.ts with `--runtime deno`,
// quickjs.test.ts in the embedded QuickJS sandbox (`--sandbox on`, its default engine).
// Every phase prints one marker line; order is read from stdout and stderr merged on one pipe.

import { describe, expect, test } from "bun:test";
import { sandbox } from "./harness.ts";
import { expectExit, markersIn, mcpx, mcpxMerged, parseFrames } from "./support.ts";

/** one flag per phase, each printing its own marker on stderr, so stdout (the body) sits between them */
const PHASE_FLAGS = [
  "--before",
  'console.error("[before]")',
  "--prefix",
  'console.error("[prefix]")',
  "--on-success",
  'console.error("[onSuccess]")',
  "--on-error",
  'console.error("[onError]")',
  "--suffix",
  'console.error("[suffix]")',
];
const MARKERS = ["[before]", "[prefix]", "[body]", "[onSuccess]", "[onError]", "[suffix]"];

export function phaseOrderTests(runtime: "bun" | "deno" | "quickjs"): void {
  const rt = runtime === "deno" ? ["--runtime", "deno"] : runtime === "quickjs" ? ["--sandbox", "on"] : [];
  const sb = sandbox();
  // no servers: these runs must not depend on any upstream
  sb.write(".mcpx.json", "{}\n");
  sb.write("ok.ts", 'console.log("[body]");\nexport default function (args: string[]) {\n  return { answer: 42, args };\n}\n');
  sb.write("throws.ts", 'console.log("[body]");\nthrow new Error("top level went wrong");\n');
  sb.write("globals.ts", 'console.log(typeof log === "function" && typeof emit === "function" ? "[body sees globals]" : "[body without globals]");\n');

  describe.concurrent(`phase order (${runtime})`, () => {
    test("the seed command prints B, then 1, then S", async () => {
      const r = await mcpxMerged(sb, ["exec", ...rt, "--before", 'console.error("B")', "--on-success", 'console.error("S")', "console.log(1)"]);
      expect(markersIn(r.output, ["B", "1", "S"])).toEqual(["B", "1", "S"]);
      expectExit(r, 0);
    });

    test("exec runs before, prefix, the snippet, onSuccess and suffix in that order, and not onError", async () => {
      const r = await mcpxMerged(sb, ["exec", ...rt, ...PHASE_FLAGS, 'console.log("[body]")']);
      expect(markersIn(r.output, MARKERS)).toEqual(["[before]", "[prefix]", "[body]", "[onSuccess]", "[suffix]"]);
      expectExit(r, 0);
    });

    test("run runs before, prefix, the file script, onSuccess and suffix in that order, and not onError", async () => {
      const r = await mcpxMerged(sb, ["run", ...rt, ...PHASE_FLAGS, "ok.ts"]);
      expect(markersIn(r.output, MARKERS)).toEqual(["[before]", "[prefix]", "[body]", "[onSuccess]", "[suffix]"]);
      expectExit(r, 0);
    });

    test("onSuccess sees result.value, the default export's return value", async () => {
      const r = await mcpx(sb, ["run", ...rt, "--on-success", 'console.error("value=" + JSON.stringify(result.value))', "ok.ts", "a", "b"]);
      expect(r.stderr).toContain('value={"answer":42,"args":["a","b"]}');
      expectExit(r, 0);
    });

    test("before sees log, emit, script and result but not the tool globals, which prefix sees", async () => {
      // decision 0005: what needs no server is installed before `before`; tools and call come after it
      const probe = (phase: string) =>
        `console.error("[${phase}] " + [typeof log, typeof log?.warn, typeof emit, typeof script, ` +
        `typeof result, typeof ToolError, typeof tools, typeof call].join(" "))`;
      const r = await mcpxMerged(sb, ["run", ...rt, "--before", probe("before"), "--prefix", probe("prefix"), "globals.ts"]);
      const before = "[before] function function function object object function undefined undefined";
      const prefix = "[prefix] function function function object object function object function";
      expect(markersIn(r.output, [before, prefix, "[body sees globals]"])).toEqual([before, prefix, "[body sees globals]"]);
      expectExit(r, 0);
    });

    test("log, emit and script.name used in before arrive as a log frame, an emit frame and text, before the body", async () => {
      const r = await mcpx(sb, ["run", ...rt, "--output", "stream", "--before", 'log("starting " + script.name); emit({ phase: "before" })', "ok.ts"]);
      expectExit(r, 0);
      const frames = parseFrames(r.stdout);
      const at = (type: string) => frames.findIndex((f) => f.type === type);
      expect(frames[at("log")]).toMatchObject({ type: "log", level: "info", message: "starting ok" });
      expect(frames[at("emit")]).toMatchObject({ type: "emit", value: { phase: "before" } });
      expect(at("log")).toBeLessThan(frames.findIndex((f) => f.type === "stdout" && String(f.data).includes("[body]")));
    });

    test("an error thrown by a before line names the phase, the line and the flag it came from", async () => {
      const r = await mcpx(sb, ["run", ...rt, "--before", 'log("fine")', "--before", "foo()", "ok.ts"]);
      expectExit(r, 1);
      // QuickJS quotes the name it did not find
      const notDefined = runtime === "quickjs" ? "'foo' is not defined" : "foo is not defined";
      expect(r.stderr).toContain(`ReferenceError: ${notDefined} (script.before line 2, from --before)`);
    });

    test("a module whose top level throws runs onError and suffix, skips onSuccess, and exits 1 with the error on stderr", async () => {
      const r = await mcpx(sb, ["run", ...rt, ...PHASE_FLAGS, "--on-error", 'console.error("[saw] " + result.error.message)', "throws.ts"]);
      expectExit(r, 1);
      expect(r.stdout).toContain("[body]");
      expect(markersIn(r.stderr, [...MARKERS, "[saw] top level went wrong"])).toEqual([
        "[before]",
        "[prefix]",
        "[onError]",
        "[saw] top level went wrong",
        "[suffix]",
      ]);
      // the error itself is reported on stderr, not swallowed by the hooks
      expect(r.stderr.replace("[saw] top level went wrong", "")).toContain("top level went wrong");
    });

    test("an exec snippet that throws runs onError and suffix, skips onSuccess, and exits 1 with the error on stderr", async () => {
      const r = await mcpx(sb, [
        "exec",
        ...rt,
        ...PHASE_FLAGS,
        "--on-error",
        'console.error("[saw] " + result.error.message)',
        'console.log("[body]"); throw new Error("snippet went wrong")',
      ]);
      expectExit(r, 1);
      expect(r.stdout).toContain("[body]");
      expect(markersIn(r.stderr, [...MARKERS, "[saw] snippet went wrong"])).toEqual([
        "[before]",
        "[prefix]",
        "[onError]",
        "[saw] snippet went wrong",
        "[suffix]",
      ]);
      expect(r.stderr.replace("[saw] snippet went wrong", "")).toContain("snippet went wrong");
    });

    test("a throwing suffix cannot turn a success into a failure: exit 0, the result kept, the suffix error reported as an error log", async () => {
      const r = await mcpx(sb, ["run", ...rt, "--json", "--suffix", 'throw new Error("suffix broke")', "ok.ts"]);
      expectExit(r, 0);
      const envelope = JSON.parse(r.stdout);
      expect(envelope).toMatchObject({ ok: true, exitCode: 0, result: { answer: 42 }, error: null });
      expect(envelope.logs).toEqual([
        expect.objectContaining({ level: "error", message: expect.stringContaining("suffix broke (script.suffix line 1, from --suffix)") }),
      ]);
    });

    test("a throwing suffix cannot replace the body's error: the body's error is what the run reports", async () => {
      const r = await mcpx(sb, ["exec", ...rt, "--json", "--suffix", 'throw new Error("suffix broke")', 'throw new Error("body broke")']);
      expectExit(r, 1);
      const envelope = JSON.parse(r.stdout);
      expect(envelope.error.message).toBe("body broke");
      expect(JSON.stringify(envelope.logs)).toContain("suffix broke");
    });

    test("a throwing onError line cannot replace the script's error: the run reports it, and the line's error as an error log naming the line", async () => {
      const r = await mcpx(sb, ["exec", ...rt, "--json", "--on-error", 'throw new Error("onError broke")', 'throw new Error("body broke")']);
      expectExit(r, 1);
      const envelope = JSON.parse(r.stdout);
      // replaced, the error would be "onError broke (script.onError line 1, from --on-error)" and "body broke" lost
      expect(envelope.error.message).toBe("body broke");
      expect(envelope.logs).toEqual([
        expect.objectContaining({
          level: "error",
          message: "script.onError failed, and the script's own error stands: Error: onError broke (script.onError line 1, from --on-error)",
        }),
      ]);
    });

    test("a throwing before or prefix line ends the run before the script starts: its error is the run's, and no onError or suffix runs", async () => {
      for (const phase of ["--before", "--prefix"]) {
        const flags = PHASE_FLAGS.flatMap((v, i) => (i % 2 === 1 && PHASE_FLAGS[i - 1] === phase ? [`${v}; throw new Error("phase broke")`] : [v]));
        const r = await mcpxMerged(sb, ["exec", ...rt, ...flags, 'console.log("[body]")']);
        expect(markersIn(r.output, MARKERS)).toEqual(phase === "--before" ? ["[before]"] : ["[before]", "[prefix]"]);
        expect(r.output).toContain(`phase broke (script.${phase.slice(2)} line 1, from ${phase})`);
        expectExit(r, 1);
      }
    });

    test("onError sees result.error and the error still propagates", async () => {
      const r = await mcpx(sb, [
        "exec",
        ...rt,
        "--on-error",
        'console.error("[onError] " + (result.error instanceof Error) + " " + result.error.message)',
        'throw new Error("kept")',
      ]);
      expect(r.stderr).toContain("[onError] true kept");
      expectExit(r, 1);
    });
  });
}
