// formatLogLine: one log record in each of the five logging.format values, with a fixed time so the
// lines can be compared exactly.

import { describe, expect, setSystemTime, test } from "bun:test";
import { LEVEL_ORDER, formatLogLine, type LogFormat, type LogRecord } from "../../lib/session/log-line.ts";

const time = new Date("2026-01-02T03:04:05.678Z");
const ISO = "2026-01-02T03:04:05.678Z";
const fromServer: LogRecord = { level: "warn", message: "slow answer", source: "everything", time, fields: { tool: "echo", ms: 1200 } };
const fromScript: LogRecord = { level: "info", message: "hello world", source: "script", time };

describe("each format", () => {
  const table: Array<[LogFormat, LogRecord, string]> = [
    ["text", fromScript, "[info] hello world"],
    ["text", fromServer, "[warn] everything: slow answer"],
    ["json", fromScript, JSON.stringify({ time: ISO, level: "info", source: "script", msg: "hello world" })],
    ["json", fromServer, JSON.stringify({ time: ISO, level: "warn", source: "everything", msg: "slow answer", tool: "echo", ms: 1200 })],
    ["logfmt", fromScript, `time=${ISO} level=info source=script msg="hello world"`],
    ["logfmt", fromServer, `time=${ISO} level=warn source=everything msg="slow answer" tool=echo ms=1200`],
    ["compact", fromScript, "I script: hello world"],
    ["compact", fromServer, "W everything: slow answer"],
    ["bare", fromScript, "hello world"],
    ["bare", fromServer, "slow answer"],
  ];
  for (const [format, record, line] of table) {
    test(`${format}: ${record.source} ${record.level} is ${JSON.stringify(line)}`, () => expect(formatLogLine(record, format)).toBe(line));
  }
});

describe("details", () => {
  test("json lines parse back to the record, fields included", () => {
    expect(JSON.parse(formatLogLine(fromServer, "json"))).toEqual({
      time: ISO,
      level: "warn",
      source: "everything",
      msg: "slow answer",
      tool: "echo",
      ms: 1200,
    });
  });

  test("logfmt quotes values with spaces, quotes, equals signs, backslashes or nothing at all", () => {
    const r: LogRecord = {
      level: "error",
      message: 'say "hi"',
      source: "a b",
      time,
      fields: { eq: "a=b", bs: "c\\d", empty: "", plain: "ok", obj: { k: [1] } },
    };
    expect(formatLogLine(r, "logfmt")).toBe(
      `time=${ISO} level=error source="a b" msg="say \\"hi\\"" eq="a=b" bs="c\\\\d" empty="" plain=ok obj="{\\"k\\":[1]}"`,
    );
  });

  test("logfmt keeps a multi-line message on one line", () => {
    expect(formatLogLine({ ...fromScript, message: "one\ntwo" }, "logfmt")).toBe(`time=${ISO} level=info source=script msg="one\\ntwo"`);
  });

  test("compact uses the level's initial for every level", () => {
    const initials = (["debug", "info", "warn", "error"] as const).map((level) => formatLogLine({ ...fromScript, level }, "compact")[0]);
    expect(initials).toEqual(["D", "I", "W", "E"]);
  });

  test("without a time, the line carries the current time", () => {
    setSystemTime(new Date("2026-03-04T05:06:07.089Z"));
    try {
      expect(JSON.parse(formatLogLine({ level: "info", message: "m", source: "mcpx" }, "json")).time).toBe("2026-03-04T05:06:07.089Z");
    } finally {
      setSystemTime();
    }
  });

  test("levels are ordered debug < info < warn < error < silent", () => {
    const order = (["debug", "info", "warn", "error", "silent"] as const).map((l) => LEVEL_ORDER[l]);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});
