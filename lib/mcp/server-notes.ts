// What a server says beside a call's answer, and where it goes: its log messages
// (notifications/message) and a call's progress (notifications/progress). A run hands its calls one
// CallNotes; a server's logs go to every run that called it and is still going (their frame streams),
// and to the process's log on stderr when there is none (`mcpx call`, `mcpx ls`, a log between runs).

/** mcpx's log levels (lib/session/log-line.ts Level, which sits above this folder) */
type Level = "debug" | "info" | "warn" | "error";

export type Progress = { progress: number; total?: number; message?: string };

/** one notifications/message, said in mcpx's levels */
export interface ServerLog {
  server: string;
  level: Level;
  message: string;
  /** the server's own name for the part of it that logged (params.logger) */
  logger?: string;
}

/** what a run hands each of its calls: one object for the whole run, so a call pays nothing to make it */
export interface CallNotes {
  log(l: ServerLog): void;
  progress(server: string, tool: string, p: Progress): void;
  /** aborted when the run ends: its calls still in flight are cancelled upstream (notifications/cancelled) */
  signal: AbortSignal;
}

/** MCP's eight levels (RFC 5424's) in mcpx's four */
const FROM_MCP: Record<string, Level> = {
  debug: "debug",
  info: "info",
  notice: "info",
  warning: "warn",
  error: "error",
  critical: "error",
  alert: "error",
  emergency: "error",
};

/** logging.level as the level asked of a server with logging/setLevel: silent asks for the fewest there are */
const TO_MCP = { debug: "debug", info: "info", warn: "warning", error: "error", silent: "emergency" } as const;

export function mcpLevelOf(level: Level | "silent"): (typeof TO_MCP)[keyof typeof TO_MCP] {
  return TO_MCP[level];
}

/** a notifications/message's params as a ServerLog: data that is not a string is shown as JSON */
export function serverLogOf(server: string, params: { level?: unknown; logger?: unknown; data?: unknown }): ServerLog {
  const level = FROM_MCP[String(params.level)] ?? "info";
  const message = typeof params.data === "string" ? params.data : JSON.stringify(params.data ?? null);
  return typeof params.logger === "string" ? { server, level, message, logger: params.logger } : { server, level, message };
}

/** a call's progress as one line's text (the status line, an mcpx_exec client's progress note): `fake.build: 40% step 2` */
export function progressText(server: string, tool: string, p: Progress): string {
  return `${server}.${tool}: ${p.total ? `${Math.round((p.progress / p.total) * 100)}%` : p.progress}${p.message ? ` ${p.message}` : ""}`;
}

/** a ServerLog as one line's text: the logger first, where the server named one */
export function serverLogText(l: { message: string; logger?: string }): string {
  return l.logger ? `${l.logger}: ${l.message}` : l.message;
}
