// The client half of --remote: POST an ExecOptions to a daemon's /v1/exec asking for NDJSON, and
// yield its frames as they arrive, so the caller renders them exactly as it renders a local run.
// A stream that ends early still ends like a run: an error (if none came yet) and an end.

import { exitCodeOf, type ErrorCode } from "../errors/codes.ts";
import { frameError } from "../errors/frame-error.ts";
import { McpxError } from "../errors/mcpx-error.ts";
import type { Frame } from "../exec/frames.ts";
import type { ExecOptions } from "../exec/options-schema.ts";
import { formatAddress, routeUrl, type DaemonAddress } from "./address.ts";

/** a daemon that cannot be reached or refuses the request; its code (E_NO_DAEMON, E_DAEMON_*, DAEMON_FAILED) decides the exit code */
export class DaemonClientError extends McpxError {
  constructor(
    message: string,
    code: ErrorCode,
    readonly status?: number,
    /** the daemon's own error body, when it sent one: a command that knows the route's codes may answer as the local command does */
    readonly answer?: { code: string; message: string },
  ) {
    super(message, code);
  }
}

/** the frames a local run would end with when the user interrupts it (lib/runtime/run-watch.ts says the same) */
const INTERRUPTED: Frame = {
  type: "error",
  error: frameError("INTERRUPTED", "the run was interrupted and its process group was ended"),
};

export async function* postExec(address: DaemonAddress, token: string, opts: ExecOptions, signal?: AbortSignal): AsyncIterable<Frame> {
  const where = formatAddress(address);
  const started = performance.now();
  let res: Response;
  try {
    res = await daemonFetch(address, token, "/v1/exec", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/x-ndjson" },
      // the frames, whatever the caller renders from them
      body: JSON.stringify({ ...opts, output: "stream" } satisfies ExecOptions),
      signal,
    });
  } catch (e) {
    // cancelled before the daemon answered (a refusal it did answer, with its status, stays the error it is)
    if (signal?.aborted && !(e instanceof DaemonClientError && e.status !== undefined)) {
      yield INTERRUPTED;
      yield { type: "end", exitCode: exitCodeOf("INTERRUPTED"), durationMs: Math.round(performance.now() - started) };
      return;
    }
    throw e;
  }

  let final = false;
  let ended = false;
  let lastExit = 1;
  const decoder = new TextDecoder();
  let buf = "";
  const parse = (line: string): Frame | undefined => {
    if (line.trim() === "") return undefined;
    const f = JSON.parse(line) as Frame;
    if (f.type === "result" || f.type === "error") final = true;
    if (f.type === "end") {
      ended = true;
      lastExit = f.exitCode;
    }
    return f;
  };
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const f = parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (f) yield f;
      }
    }
    const f = parse(buf + decoder.decode());
    if (f) yield f;
  } catch (e) {
    if (!signal?.aborted) {
      if (!final)
        yield {
          type: "error",
          error: frameError("DAEMON_LOST", `the connection to the daemon at ${where} broke before the run ended: ${(e as Error).message}`),
        };
      if (!ended) yield { type: "end", exitCode: exitCodeOf("DAEMON_LOST"), durationMs: Math.round(performance.now() - started) };
      return;
    }
  }
  if (ended) return;
  if (signal?.aborted) {
    // the daemon cancels the run when the connection goes; what it said after that is not seen here
    if (!final) yield INTERRUPTED;
    yield { type: "end", exitCode: final ? lastExit : exitCodeOf("INTERRUPTED"), durationMs: Math.round(performance.now() - started) };
    return;
  }
  if (!final)
    yield {
      type: "error",
      error: frameError("DAEMON_LOST", `the daemon at ${where} closed the stream before the run ended`),
    };
  yield { type: "end", exitCode: exitCodeOf("DAEMON_LOST"), durationMs: Math.round(performance.now() - started) };
}

/** why fetch could not reach the daemon: none listening (E_NO_DAEMON), or another failure */
function unreachable(e: unknown, where: string): DaemonClientError {
  const code = (e as { code?: string }).code ?? "";
  if (
    ["ENOENT", "ECONNREFUSED", "ConnectionRefused", "FailedToOpenSocket"].includes(code) ||
    /ENOENT|ECONNREFUSED|Unable to connect/i.test(String((e as Error).message))
  ) {
    return new DaemonClientError(`no daemon at ${where}: start one with \`mcpx daemon start\``, "E_NO_DAEMON");
  }
  return new DaemonClientError(`the daemon at ${where} could not be reached: ${(e as Error).message}`, "E_DAEMON_UNREACHABLE");
}

/**
 * One request to a daemon route with its token, over its socket or TCP; the answer, its body unread.
 * A daemon not reached, or one that refuses (any status but 2xx and `answers`), is a DaemonClientError.
 */
async function daemonFetch(
  address: DaemonAddress,
  token: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
  answers: readonly number[] = [],
): Promise<Response> {
  const where = formatAddress(address);
  const headers: Record<string, string> = { ...init.headers };
  if (token !== "") headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(routeUrl(address, path), {
      ...init,
      headers,
      // a tool call or a run may be quiet for longer than Bun's 5-minute idle limit
      timeout: false,
      ...(address.kind === "unix" ? { unix: address.path } : {}),
    } as RequestInit);
  } catch (e) {
    throw unreachable(e, where);
  }
  if (!res.ok && !answers.includes(res.status)) throw await refusal(res, where);
  return res;
}

/** one JSON request to a daemon route and its JSON answer; a daemon that is not there or refuses throws DaemonClientError */
/** @param answers statuses besides 2xx whose JSON body is the answer, not a refusal (readiness's 503) */
export async function daemonJson<T>(
  address: DaemonAddress,
  token: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  answers: readonly number[] = [],
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await daemonFetch(address, token, path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }, answers);
  return (await res.json()) as T;
}

/**
 * GET a path on the daemon (an artifact frame's `/v1/artifacts/ID`) with the run's address and
 * token; the answer as it came, its body unread, or DaemonClientError for a daemon not reached or
 * a refusal (its message the daemon's: expired, evicted, unknown).
 */
export function daemonGet(address: DaemonAddress, token: string, path: string, signal?: AbortSignal): Promise<Response> {
  return daemonFetch(address, token, path, signal ? { signal } : {});
}

async function refusal(res: Response, where: string): Promise<DaemonClientError> {
  let message = `HTTP ${res.status}`;
  let answer: { code: string; message: string } | undefined;
  try {
    const body = (await res.json()) as { error?: { code?: unknown; message?: string } };
    if (body.error?.message) message = body.error.message;
    if (typeof body.error?.code === "string") answer = { code: body.error.code, message };
  } catch {
    // not JSON: the status is all there is
  }
  if (res.status === 401) return new DaemonClientError(`the daemon at ${where} refused the request: ${message}`, "E_DAEMON_AUTH", 401, answer);
  if (res.status === 400 || res.status === 413)
    return new DaemonClientError(`the daemon at ${where} refused the run: ${message}`, "E_DAEMON_REFUSED", res.status, answer);
  return new DaemonClientError(
    `the daemon at ${where} answered ${res.status}: ${message}`,
    res.status === 404 ? "E_DAEMON_VERSION" : "DAEMON_FAILED",
    res.status,
    answer,
  );
}
