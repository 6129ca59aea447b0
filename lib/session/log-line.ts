// One log line in each logging.format. Pure, so every format is tested directly.

export type LogFormat = "text" | "json" | "logfmt" | "compact" | "bare";
export type Level = "debug" | "info" | "warn" | "error";
export const LEVEL_ORDER: Record<Level | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LogRecord {
  level: Level;
  message: string;
  /** who said it: "script", "mcpx", a server name, a hook name */
  source: string;
  time?: Date;
  fields?: Record<string, unknown>;
}

export function formatLogLine(r: LogRecord, format: LogFormat): string {
  const time = (r.time ?? new Date()).toISOString();
  switch (format) {
    case "json":
      return JSON.stringify({ time, level: r.level, source: r.source, msg: r.message, ...r.fields });
    case "logfmt":
      return [
        `time=${time}`,
        `level=${r.level}`,
        `source=${logfmtValue(r.source)}`,
        `msg=${logfmtValue(r.message)}`,
        ...Object.entries(r.fields ?? {}).map(([k, v]) => `${k}=${logfmtValue(typeof v === "string" ? v : JSON.stringify(v))}`),
      ].join(" ");
    case "compact":
      return `${r.level[0]!.toUpperCase()} ${r.source}: ${r.message}`;
    case "bare":
      return r.message;
    case "text":
      return `[${r.level}] ${r.source === "script" ? "" : r.source + ": "}${r.message}`;
  }
}

function logfmtValue(s: string): string {
  return /^[^\s"=\\]+$/.test(s) ? s : JSON.stringify(s);
}
