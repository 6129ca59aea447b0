// The CLI's three renderings of a frame stream: text (stdout on stdout, the rest on stderr in
// logging.format), one JSON envelope (--json), or NDJSON frames (--output stream).

import type { Frame, SerializedError } from "../exec/frames.ts";
import { LEVEL_ORDER, formatLogLine, type Level, type LogFormat } from "./log-line.ts";
import { err, out } from "./write.ts";

export type OutputMode = "text" | "json" | "stream";

export interface RenderOptions {
  mode: OutputMode;
  format: LogFormat;
  level: Level | "silent";
}

export interface Envelope {
  ok: boolean;
  exitCode: number;
  result: unknown;
  emits: unknown[];
  logs: Array<{ level: string; message: string }>;
  stdout: string;
  stderr: string;
  calls: Array<Omit<Extract<Frame, { type: "call" }>, "type">>;
  hooks: Array<Omit<Extract<Frame, { type: "hook" }>, "type">>;
  durationMs: number;
  runId: string;
  error: SerializedError | null;
}

/** renders every frame and returns the run's exit code */
export async function renderFrames(frames: AsyncIterable<Frame>, o: RenderOptions): Promise<number> {
  const env: Envelope = { ok: false, exitCode: 1, result: null, emits: [], logs: [], stdout: "", stderr: "", calls: [], hooks: [], durationMs: 0, runId: "", error: null };
  const log = (level: Level, message: string, source = "script", fields?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] >= LEVEL_ORDER[o.level]) err(formatLogLine({ level, message, source, fields }, o.format) + "\n");
  };
  for await (const f of frames) {
    if (o.mode === "stream") out(JSON.stringify(f) + "\n");
    const { type: _t, ...body } = f;
    switch (f.type) {
      case "start":
        env.runId = f.runId;
        break;
      case "stdout":
        env.stdout += f.data;
        if (o.mode === "text") out(f.data);
        break;
      case "stderr":
        env.stderr += f.data;
        if (o.mode === "text") err(f.data);
        break;
      case "log":
        env.logs.push({ level: f.level, message: f.message });
        if (o.mode === "text") log(f.level, f.message);
        break;
      case "emit":
        env.emits.push(f.value);
        if (o.mode === "text") log("info", JSON.stringify(f.value), "emit");
        break;
      case "call":
        env.calls.push(body as Envelope["calls"][number]);
        if (o.mode === "text") log("debug", `${f.server}.${f.tool} ${f.ok ? "ok" : "failed"} in ${f.durationMs}ms${f.error ? `: ${f.error}` : ""}`, "call");
        break;
      case "hook":
        env.hooks.push(body as Envelope["hooks"][number]);
        if (o.mode === "text") {
          const who = `hook ${f.name ?? f.on + "." + f.phase}`;
          for (const a of f.advice ?? []) log("warn", a, who);
          if (f.failed) log("warn", `failed (${f.on}.${f.phase}): ${f.failed}`, who);
          if (f.dropped?.length) log("info", `dropped: ${f.dropped.join("; ")}`, who);
          if (f.proposed !== undefined) log("info", `proposed: ${JSON.stringify(f.proposed)}`, who);
        }
        break;
      case "result":
        env.result = f.value ?? null;
        env.ok = true;
        if (o.mode === "text" && f.value !== undefined && f.value !== null) out(typeof f.value === "string" ? withNewline(f.value) : JSON.stringify(f.value, null, 2) + "\n");
        break;
      case "error":
        env.error = f.error;
        env.ok = false;
        if (o.mode === "text") log("error", describeError(f.error), "mcpx");
        break;
      case "end":
        env.exitCode = f.exitCode;
        env.durationMs = f.durationMs;
        break;
    }
  }
  if (o.mode === "json") out(JSON.stringify(env, null, 2) + "\n");
  return env.exitCode;
}

function withNewline(s: string): string {
  return s.endsWith("\n") ? s : s + "\n";
}

/** the error and the part of its stack that is the user's, not the generated launcher's */
export function describeError(e: SerializedError): string {
  const head = `${e.name}: ${e.message}`;
  const frames = (e.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l) && !/\/mcpx\/launch|launcher-[0-9a-f]+\.ts|runtime-[0-9a-f]+\.ts|native|node:/.test(l));
  return frames.length ? `${head}\n${frames.slice(0, 5).join("\n")}` : head;
}
