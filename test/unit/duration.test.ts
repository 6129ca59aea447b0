// parseDuration / formatDuration: strict on the way in (a unit is required, because "30" could mean
// seconds or milliseconds), shortest exact form on the way out, and the two round-trip.

import { describe, expect, test } from "bun:test";
import { formatDuration, parseDuration } from "../../lib/settings/duration.ts";

describe("parseDuration", () => {
  const ok: Array<[string, number]> = [
    ["0", 0],
    ["0s", 0],
    ["0ms", 0],
    ["250ms", 250],
    ["1s", 1000],
    ["2.5s", 2500],
    ["1m", 60_000],
    ["1.5m", 90_000],
    ["1h", 3_600_000],
    ["0.5h", 1_800_000],
    [" 30s ", 30_000],
    ["1.5ms", 2],
  ];
  for (const [text, ms] of ok) test(`${JSON.stringify(text)} is ${ms}ms`, () => expect(parseDuration(text)).toBe(ms));

  const bad = ["30", "", "s", "1", "-1s", "1 s", "1sec", "1S", "1d", "1e3ms", ".5s", "1.s", "1m30s", "00", "ten seconds", "Infinity"];
  for (const text of bad) {
    test(`${JSON.stringify(text)} is refused with the accepted forms`, () => {
      expect(parseDuration(text)).toBe(`"${text}" is not a duration: use a number with a unit, like 250ms, 2.5s, 1m or 1h (0 for none)`);
    });
  }
});

describe("formatDuration", () => {
  const table: Array<[number, string]> = [
    [0, "0s"],
    [1, "1ms"],
    [999, "999ms"],
    [1000, "1s"],
    [1500, "1500ms"],
    [59_000, "59s"],
    [60_000, "1m"],
    [90_000, "90s"],
    [3_600_000, "1h"],
    [5_400_000, "90m"],
    [86_400_000, "24h"],
  ];
  for (const [ms, text] of table) test(`${ms}ms is written ${text}`, () => expect(formatDuration(ms)).toBe(text));

  test("every whole number of milliseconds survives format then parse", () => {
    const samples = [0, 1, 7, 999, 1000, 1001, 2500, 59_999, 60_000, 61_000, 3_599_999, 3_600_000, 7_200_000, 123_456_789];
    for (let ms = 0; ms < 5000; ms += 37) samples.push(ms);
    for (const ms of samples) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });

  test("every accepted text survives parse then format then parse", () => {
    for (const text of ["250ms", "2.5s", "1m", "1h", "0", "90s", "0.001s"]) {
      const ms = parseDuration(text) as number;
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
