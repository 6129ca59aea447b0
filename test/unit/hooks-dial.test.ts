// The autonomy dial: the three clamps on a hook's effect, and which output keys survive at a point
// and phase. Dropped keys must be reported with a reason, never silently lost and never honoured.

import { describe, expect, test } from "bun:test";
import { applyDial, effectiveLevel } from "../../lib/hooks/dial.ts";
import type { Level, Phase } from "../../lib/hooks/points.ts";

describe("effectiveLevel", () => {
  const table: Array<{ name: string; args: [Level, Phase, Level, Level] | [Level, Phase, Level, Level, Level]; level: Level; clampedBy: string[] }> = [
    { name: "nothing clamps an advise hook at before under the defaults", args: ["advise", "before", "run", "run"], level: "advise", clampedBy: [] },
    { name: "an apply hook keeps apply when every ceiling is run", args: ["apply", "onSuccess", "run", "run"], level: "apply", clampedBy: [] },
    { name: "suffix clamps anything above advise to advise", args: ["apply", "suffix", "run", "run"], level: "advise", clampedBy: ["phase"] },
    { name: "observe clamps everything to off", args: ["advise", "observe", "run", "run"], level: "off", clampedBy: ["phase"] },
    { name: "an off hook at observe is not clamped", args: ["off", "observe", "run", "run"], level: "off", clampedBy: [] },
    { name: "hooks.autonomy lowers an apply hook to advise", args: ["apply", "before", "advise", "run"], level: "advise", clampedBy: ["hooks.autonomy"] },
    { name: "autonomy.max lowers an apply hook to refuse", args: ["apply", "before", "run", "refuse"], level: "refuse", clampedBy: ["autonomy.max"] },
    {
      name: "the lowest ceiling wins and every ceiling below the declared effect is named",
      args: ["run", "onError", "propose", "advise"],
      level: "advise",
      clampedBy: ["hooks.autonomy", "autonomy.max"],
    },
    {
      name: "all three clamps can be named at once",
      args: ["apply", "suffix", "ask", "off"],
      level: "off",
      clampedBy: ["phase", "hooks.autonomy", "autonomy.max"],
    },
    { name: "a ceiling at or above the declared effect is not named", args: ["ask", "before", "apply", "ask"], level: "ask", clampedBy: [] },
    {
      name: "ask and refuse share a rung: an ask hook under a refuse ceiling stays ask",
      args: ["ask", "before", "refuse", "run"],
      level: "ask",
      clampedBy: [],
    },
    {
      name: "ask and refuse share a rung: a refuse hook under an ask ceiling stays refuse",
      args: ["refuse", "before", "ask", "ask"],
      level: "refuse",
      clampedBy: [],
    },
    { name: "an apply hook under an ask ceiling becomes ask", args: ["apply", "onSuccess", "ask", "run"], level: "ask", clampedBy: ["hooks.autonomy"] },
    {
      name: "a run's own apply hook is capped at refuse, and the cap is named",
      args: ["apply", "onSuccess", "run", "run", "refuse"],
      level: "refuse",
      clampedBy: ["the per-run hooks' cap"],
    },
    { name: "a run's own advise hook is not clamped by its cap", args: ["advise", "before", "run", "run", "refuse"], level: "advise", clampedBy: [] },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(effectiveLevel(...(row.args as [Level, Phase, Level, Level, Level?]))).toEqual({ level: row.level, clampedBy: row.clampedBy as never });
    });
  }
});

describe("applyDial", () => {
  const table: Array<{
    name: string;
    output: Record<string, unknown>;
    level: Level | { level: Level; clampedBy: Array<"phase" | "hooks.autonomy" | "autonomy.max"> };
    at: [string, Phase];
    kept: Record<string, unknown>;
    dropped: string[];
  }> = [
    { name: "an empty output keeps and drops nothing", output: {}, level: "run", at: ["call", "before"], kept: {}, dropped: [] },
    { name: "advice at advise is kept", output: { advise: "careful" }, level: "advise", at: ["call", "before"], kept: { advise: "careful" }, dropped: [] },
    {
      name: "apply above the level is dropped naming the clamp",
      output: { apply: { q: 1 }, advise: "rewrote" },
      level: { level: "advise", clampedBy: ["hooks.autonomy"] },
      at: ["call", "before"],
      kept: { advise: "rewrote" },
      dropped: ["apply: above advise (clamped by hooks.autonomy)"],
    },
    {
      name: "a key above a plain level has no clamp note",
      output: { refuse: "no" },
      level: "advise",
      at: ["call", "before"],
      kept: {},
      dropped: ["refuse: above advise"],
    },
    { name: "refuse at ask is kept: they share a rung", output: { refuse: "no" }, level: "ask", at: ["call", "before"], kept: { refuse: "no" }, dropped: [] },
    {
      name: "ask at refuse is kept: they share a rung",
      output: { ask: "sure?" },
      level: "refuse",
      at: ["script", "onSuccess"],
      kept: { ask: "sure?" },
      dropped: [],
    },
    {
      name: "apply at apply replaces the arguments at call.before",
      output: { apply: { q: "x" } },
      level: "apply",
      at: ["call", "before"],
      kept: { apply: { q: "x" } },
      dropped: [],
    },
    {
      name: "propose at apply is kept (lower keys pass)",
      output: { propose: 1 },
      level: "apply",
      at: ["call", "onSuccess"],
      kept: { propose: 1 },
      dropped: [],
    },
    {
      name: "a key the phase does not act on is dropped even at the top level",
      output: { propose: 1, advise: "done" },
      level: "run",
      at: ["call", "suffix"],
      kept: { advise: "done" },
      dropped: ["propose: not acted on at call.suffix"],
    },
    {
      name: "refuse is not acted on at onError (the error propagates anyway)",
      output: { refuse: "x" },
      level: "run",
      at: ["call", "onError"],
      kept: {},
      dropped: ["refuse: not acted on at call.onError"],
    },
    { name: "run retry at call.onError is kept at run", output: { run: "retry" }, level: "run", at: ["call", "onError"], kept: { run: "retry" }, dropped: [] },
    {
      name: "run at call.before is not acted on",
      output: { run: "retry" },
      level: "run",
      at: ["call", "before"],
      kept: {},
      dropped: ["run: not acted on at call.before"],
    },
    {
      name: "server.start.before does not act on apply",
      output: { apply: {} },
      level: "run",
      at: ["server.start", "before"],
      kept: {},
      dropped: ["apply: not acted on at server.start.before"],
    },
    {
      name: "an unknown key is dropped as unknown",
      output: { block: true, advise: "x" },
      level: "run",
      at: ["call", "before"],
      kept: { advise: "x" },
      dropped: ["block: unknown key (output keys are advise, ask, refuse, propose, apply, run)"],
    },
    {
      name: '"off" is a level but not an output key',
      output: { off: true },
      level: "run",
      at: ["call", "before"],
      kept: {},
      dropped: ["off: unknown key (output keys are advise, ask, refuse, propose, apply, run)"],
    },
    {
      name: "at observe nothing acts, whatever the level",
      output: { advise: "x" },
      level: "off",
      at: ["call.finished", "observe"],
      kept: {},
      dropped: ["advise: not acted on at observe"],
    },
    {
      name: "at off even advice is dropped",
      output: { advise: "x" },
      level: { level: "off", clampedBy: ["autonomy.max"] },
      at: ["call", "before"],
      kept: {},
      dropped: ["advise: above off (clamped by autonomy.max)"],
    },
    {
      name: "a refuse reason that is not text is dropped",
      output: { refuse: true },
      level: "run",
      at: ["call", "before"],
      kept: {},
      dropped: ["refuse: expected a text, got a boolean"],
    },
    {
      name: "an empty refuse reason is no opinion, not a refusal",
      output: { refuse: "  " },
      level: "run",
      at: ["call", "before"],
      kept: {},
      dropped: ["refuse: empty text (no opinion)"],
    },
    {
      name: "advice that is an object is dropped",
      output: { advise: { a: 1 } },
      level: "run",
      at: ["call", "before"],
      kept: {},
      dropped: ["advise: expected a text, got an object"],
    },
    {
      name: "run other than retry is dropped",
      output: { run: "again" },
      level: "run",
      at: ["script", "onError"],
      kept: {},
      dropped: ['run: expected "retry", got "again"'],
    },
    {
      name: "apply with null is a value (a null result) and is kept",
      output: { apply: null },
      level: "apply",
      at: ["call", "onError"],
      kept: { apply: null },
      dropped: [],
    },
    {
      name: "every dropped key is reported in the output's key order",
      output: { zed: 1, apply: 2, propose: 3, advise: "ok" },
      level: { level: "advise", clampedBy: ["phase"] },
      at: ["call", "suffix"],
      kept: { advise: "ok" },
      dropped: [
        "zed: unknown key (output keys are advise, ask, refuse, propose, apply, run)",
        "apply: not acted on at call.suffix",
        "propose: not acted on at call.suffix",
      ],
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(applyDial(row.output, row.level, ...row.at)).toEqual({ kept: row.kept, dropped: row.dropped });
    });
  }
});
