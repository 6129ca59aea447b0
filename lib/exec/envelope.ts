// One run's frames folded into one structured result: what `--json` prints, what /v1/exec answers
// without NDJSON, and what mcpx_exec returns. Pure: frames in, envelope out.

import type { Frame, SerializedError } from "./frames.ts";

export interface Envelope {
  ok: boolean;
  exitCode: number;
  result: unknown;
  emits: unknown[];
  /** the script's logs, and the servers' (with server, and logger where one was named) */
  logs: Array<{ level: string; message: string; server?: string; logger?: string }>;
  stdout: string;
  stderr: string;
  calls: Array<Omit<Extract<Frame, { type: "call" }>, "type">>;
  hooks: Array<Omit<Extract<Frame, { type: "hook" }>, "type">>;
  /** what the script made with artifact(name, data), in order: where each is (uri) and what it holds */
  artifacts: Array<Omit<Extract<Frame, { type: "artifact" }>, "type">>;
  durationMs: number;
  runId: string;
  error: SerializedError | null;
}

export function emptyEnvelope(): Envelope {
  return {
    ok: false,
    exitCode: 1,
    result: null,
    emits: [],
    logs: [],
    stdout: "",
    stderr: "",
    calls: [],
    hooks: [],
    artifacts: [],
    durationMs: 0,
    runId: "",
    error: null,
  };
}

/** folds one frame into the envelope; frame types it does not know are ignored (an open set) */
export function foldFrame(env: Envelope, f: Frame): void {
  const { type: _t, ...body } = f;
  switch (f.type) {
    case "start":
      env.runId = f.runId;
      break;
    case "stdout":
      env.stdout += f.data;
      break;
    case "stderr":
      env.stderr += f.data;
      break;
    case "log":
      env.logs.push("server" in f ? (body as Envelope["logs"][number]) : { level: f.level, message: f.message });
      break;
    case "emit":
      env.emits.push(f.value);
      break;
    case "call":
      env.calls.push(body as Envelope["calls"][number]);
      break;
    case "hook":
      env.hooks.push(body as Envelope["hooks"][number]);
      break;
    case "artifact":
      env.artifacts.push(body as Envelope["artifacts"][number]);
      break;
    case "result":
      env.result = f.value ?? null;
      env.ok = true;
      break;
    case "error":
      env.error = f.error;
      env.ok = false;
      break;
    case "end":
      env.exitCode = f.exitCode;
      env.durationMs = f.durationMs;
      break;
  }
}

export async function collectEnvelope(frames: AsyncIterable<Frame>): Promise<Envelope> {
  const env = emptyEnvelope();
  for await (const f of frames) foldFrame(env, f);
  return env;
}
