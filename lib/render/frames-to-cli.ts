// The CLI's three renderings of a frame stream: text (stdout on stdout, the rest on stderr in
// logging.format), one JSON envelope (--json), or NDJSON frames (--output stream).

import { emptyEnvelope, foldFrame, type Envelope } from "../exec/envelope.ts";
import type { Frame, SerializedError } from "../exec/frames.ts";
import type { OutputMode } from "../exec/options.ts";
import { LEVEL_ORDER, formatLogLine, type Level, type LogFormat } from "../session/log-line.ts";
import { err, out } from "../util/fd-write.ts";
import { serverLogText } from "../mcp/server-notes.ts";
import { exitCodeOf } from "../errors/codes.ts";
import { localArtifactPath, writeArtifact, type ArtifactTarget } from "./artifact-files.ts";

export interface RenderOptions {
  mode: OutputMode;
  format: LogFormat;
  level: Level | "silent";
  /** --artifacts DIR [--force]: each artifact written there as it is announced */
  artifacts?: ArtifactTarget;
}

/** renders every frame and returns the run's exit code */
export async function renderFrames(frames: AsyncIterable<Frame>, o: RenderOptions): Promise<number> {
  const env: Envelope = emptyEnvelope();
  // a message may be made only once its level is known to print: a call's debug line is not, at the default level
  const log = (level: Level, message: string | (() => string), source = "script", fields?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] < LEVEL_ORDER[o.level]) return;
    err(formatLogLine({ level, message: typeof message === "string" ? message : message(), source, fields }, o.format) + "\n");
  };
  let unwritten = false;
  for await (const f of frames) {
    if (f.type === "artifact") unwritten = !placeArtifact(f, o, log) || unwritten;
    // only --json prints the envelope; the other modes need only its exit code, and folding every
    // call frame of a long run into it costs a copy per call (and its args hash)
    if (o.mode === "json" || f.type === "end") foldFrame(env, f);
    if (o.mode === "stream") out(JSON.stringify(f) + "\n");
    if (o.mode === "text") renderText(f, log);
  }
  if (o.mode === "json") out(JSON.stringify(env, null, 2) + "\n");
  // an artifact the user asked for and did not get fails a run that otherwise succeeded
  return unwritten && env.exitCode === 0 ? exitCodeOf("ARTIFACT") : env.exitCode;
}

/**
 * An artifact frame on the CLI: written into --artifacts DIR when given, and in text mode said on
 * stderr with where its bytes are, in logging.format (whatever logging.level: a file the
 * user is not told of is lost). False when it could not be written.
 */
function placeArtifact(f: Extract<Frame, { type: "artifact" }>, o: RenderOptions, log: (level: Level, message: string, source?: string) => void): boolean {
  let where = localArtifactPath(f) ?? f.uri;
  if (o.artifacts) {
    const w = writeArtifact(f, o.artifacts);
    if (!w.ok) {
      log("error", w.message, "mcpx");
      return false;
    }
    where = w.path;
  }
  if (o.mode === "text") {
    const message = `${f.name} (${f.size} bytes, ${f.mime}): ${where}`;
    err(formatLogLine({ level: "info", message, source: "artifact", fields: { name: f.name, size: f.size, mime: f.mime, path: where } }, o.format) + "\n");
  }
  return true;
}

/**
 * What text mode prints on stdout for a frame: the script's stdout, and its returned value (a string
 * as it is, anything else as JSON). /v1/exec's text answer is made of the same pieces.
 */
export function textModeStdout(f: Frame): string | Uint8Array | undefined {
  // the script's exact bytes where they are not UTF-8 (a binary file written to stdout)
  if (f.type === "stdout") return f.bytes !== undefined ? Buffer.from(f.bytes, "base64") : f.data;
  if (f.type === "result" && f.value !== undefined && f.value !== null)
    return typeof f.value === "string" ? withNewline(f.value) : JSON.stringify(f.value, null, 2) + "\n";
  return undefined;
}

/** text mode: stdout on stdout; the script's stderr, logs, emits, hook notes and the error on stderr */
function renderText(f: Frame, log: (level: Level, message: string | (() => string), source?: string) => void): void {
  const printed = textModeStdout(f);
  if (printed !== undefined) {
    out(printed);
    return;
  }
  switch (f.type) {
    case "stderr":
      err(f.data);
      break;
    case "log":
      if ("server" in f) log(f.level, serverLogText(f), f.server);
      else log(f.level, f.message);
      break;
    case "emit":
      log("info", JSON.stringify(f.value), "emit");
      break;
    case "call":
      log("debug", () => `${f.server}.${f.tool} ${f.ok ? "ok" : "failed"} in ${f.durationMs}ms${f.error ? `: ${f.error}` : ""}`, "call");
      break;
    case "hook":
      renderHookNotes(f, log);
      break;
    case "error":
      log("error", describeError(f.error), "mcpx");
      break;
  }
}

/** a hook frame's advice, failure, dropped keys and proposal as log lines (run, exec and mcpx call) */
export function renderHookNotes(f: Extract<Frame, { type: "hook" }>, log: (level: Level, message: string, source?: string) => void): void {
  const who = `hook ${f.name ?? f.on + "." + f.phase}`;
  for (const a of f.advice ?? []) log("warn", a, who);
  if (f.failed) log("warn", `failed (${f.on}.${f.phase}): ${f.failed}`, who);
  if (f.dropped?.length) log("info", `dropped: ${f.dropped.join("; ")}`, who);
  if (f.proposed !== undefined) log("info", `proposed: ${JSON.stringify(f.proposed)}`, who);
}

function withNewline(s: string): string {
  return s.endsWith("\n") ? s : s + "\n";
}

/** the error and the part of its stack that is the user's, not the generated launcher's */
function describeError(e: SerializedError): string {
  const head = `${e.name}: ${e.message}`;
  const frames = (e.stack ?? "")
    .split("\n")
    .filter((l) => /^\s+at /.test(l) && !/\/mcpx\/launch|launcher-[0-9a-f]+\.ts|runtime-[0-9a-f]+\.ts|native|node:/.test(l));
  return frames.length ? `${head}\n${frames.slice(0, 5).join("\n")}` : head;
}
