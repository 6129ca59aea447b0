// The points table is the single source for validation, docs and the gate: these checks keep its
// entries consistent with the vocabulary (design §1) so nothing downstream has to re-check them.

import { describe, expect, test } from "bun:test";
import { WHEN_KEYS } from "../../lib/hooks/hook.ts";
import { levelRank, OUTPUT_KEYS, PHASES, phaseCeiling, phasesOf, phaseSpec, POINT_NAMES, POINTS } from "../../lib/hooks/points.ts";

describe("the points table", () => {
  test("has exactly the three points of the design", () => {
    expect(POINT_NAMES).toEqual(["script", "call", "resource.read", "prompt.get", "server.start", "agent.stop", "agent.compact"]);
  });

  test("no point lists prefix or observe: prefix is inline source, observe is the bus", () => {
    for (const point of POINT_NAMES) for (const phase of phasesOf(point)) expect(["prefix", "observe"]).not.toContain(phase);
  });

  test("every listed phase is one of the six", () => {
    for (const point of POINT_NAMES) for (const phase of phasesOf(point)) expect(PHASES).toContain(phase);
  });

  test("every acting key is an output key within the phase's ceiling", () => {
    for (const point of POINT_NAMES) {
      for (const phase of phasesOf(point)) {
        for (const key of phaseSpec(point, phase)!.keys) {
          expect(OUTPUT_KEYS).toContain(key);
          expect(levelRank(key)).toBeLessThanOrEqual(levelRank(phaseCeiling(phase)));
        }
      }
    }
  });

  test("a described effect is always for a key that acts there", () => {
    for (const point of POINT_NAMES) {
      for (const phase of phasesOf(point)) {
        const spec = phaseSpec(point, phase)!;
        for (const key of Object.keys(spec.effects)) expect(spec.keys).toContain(key as never);
      }
    }
  });

  test("every point's when filters are when keys", () => {
    for (const point of POINT_NAMES) for (const f of POINTS[point].filters) expect(WHEN_KEYS).toContain(f);
  });

  test("every phase but observe lets a hook advise", () => {
    for (const point of POINT_NAMES) for (const phase of phasesOf(point)) expect(phaseSpec(point, phase)!.keys).toContain("advise");
  });
});
