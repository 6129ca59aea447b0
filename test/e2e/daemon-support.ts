// Shared helpers for the daemon end-to-end files: start `mcpx daemon` in a sandbox and wait for its
// "listening" line, talk to it over its unix socket (or TCP), read NDJSON frames and SSE events, and
// end every daemon a file started: each file calls afterAll(stopDaemons) itself (an afterAll in a
// shared module registers only for the first file that imports it, so later files' daemons leaked).

import { expect } from "bun:test";
import { join } from "node:path";
import { MCPX, type Sandbox } from "./harness.ts";
import type { Frame } from "./support.ts";

export interface Daemon {
  proc: ReturnType<typeof Bun.spawn>;
  /** the socket path, or the URL for TCP, as the daemon printed it */
  address: string;
  /** the unix socket, when it listens on one */
  sock?: string;
  /** everything the daemon wrote to stderr so far */
  stderr(): string;
  /** fetch a route: over the socket, or the URL for TCP */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** SIGTERM (a drain: runs in flight may finish) or SIGINT (at once), then its exit code (SIGKILL after 15 s, and the code says so) */
  stop(signal?: "SIGTERM" | "SIGINT"): Promise<number>;
}

const started: Daemon[] = [];

/**
 * SIGINT to every daemon this file started; each must exit 0. SIGINT, not SIGTERM: a clean-up ends at
 * once whatever a test left going, where SIGTERM's drain would wait daemon.drainGrace for it.
 */
export async function stopDaemons(): Promise<void> {
  const codes = await Promise.all(started.splice(0).map(async (d) => ({ address: d.address, code: await d.stop("SIGINT"), stderr: d.stderr() })));
  const unclean = codes.filter((c) => c.code !== 0 && c.code !== 137);
  if (unclean.length) throw new Error(`daemons that did not exit cleanly: ${JSON.stringify(unclean)}`);
}

/**
 * The default socket of a sandbox's config chain, as `mcpx daemon status` reports it: in
 * $XDG_RUNTIME_DIR/mcpx, daemon.sock for the user's config alone, d-HASH.sock with a project's.
 */
export function defaultSocket(sb: Sandbox, cwd = sb.dir): string {
  const r = Bun.spawnSync([MCPX, "daemon", "status", "--json"], { cwd, env: sb.env, stdout: "pipe", stderr: "pipe" });
  const address = (JSON.parse(r.stdout.toString()) as { address: string }).address;
  expect(address.startsWith(join(sb.env.XDG_RUNTIME_DIR!, "mcpx") + "/") || address.startsWith(sb.env.XDG_STATE_HOME!)).toBe(true);
  return address;
}

/** starts `mcpx daemon ARGS` in the sandbox and resolves once it prints its listening line */
export async function startDaemon(sb: Sandbox, args: string[] = [], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Daemon> {
  const proc = Bun.spawn([MCPX, "daemon", ...args], {
    cwd: opts.cwd ?? sb.dir,
    env: { ...sb.env, ...opts.env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let said = "";
  const decoder = new TextDecoder();
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  let listening!: (address: string) => void;
  const ready = new Promise<string>((r) => (listening = r));
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      said += decoder.decode(value, { stream: true });
      const m = /mcpx daemon listening on (\S+)\n/.exec(said);
      if (m) listening(m[1]!);
    }
  })();
  const address = await Promise.race([
    ready,
    proc.exited.then((code) => Promise.reject(new Error(`mcpx daemon exited ${code} before listening: ${said}`))),
    Bun.sleep(20_000).then(() => Promise.reject(new Error(`mcpx daemon did not say it was listening within 20 s: ${said}`))),
  ]);
  const sock = address.startsWith("/") ? address : undefined;
  let stopping: Promise<number> | undefined;
  const d: Daemon = {
    proc,
    address,
    sock,
    stderr: () => said,
    fetch: (path, init = {}) => fetch(sock ? `http://localhost${path}` : `${address}${path}`, { ...init, ...(sock ? { unix: sock } : {}) } as RequestInit),
    stop: (signal = "SIGTERM") =>
      (stopping ??= (async () => {
        proc.kill(signal);
        const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => -1)]);
        if (code === -1) {
          proc.kill("SIGKILL");
          await proc.exited;
        }
        return code;
      })()),
  };
  started.push(d);
  return d;
}

/** POST /v1/exec asking for NDJSON; every frame, in order */
export async function execFrames(d: Daemon, body: unknown): Promise<Frame[]> {
  const res = await d.fetch("/v1/exec", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/x-ndjson" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Frame);
}

export interface Envelope {
  ok: boolean;
  exitCode: number;
  result: unknown;
  stdout: string;
  stderr: string;
  runId: string;
  calls: Array<{ server: string; tool: string; ok: boolean }>;
  hooks: Array<Record<string, unknown>>;
  error: { name: string; message: string; code?: string } | null;
  [k: string]: unknown;
}

/** POST /v1/exec without NDJSON: the one envelope */
export async function execEnvelope(d: Daemon, body: unknown): Promise<Envelope> {
  const res = await d.fetch("/v1/exec", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as Envelope;
}

/**
 * Reads a streaming body line by line, handing each complete line to `onLine` until it returns true
 * (then the request is aborted: the client goes away) or the body ends.
 */
export async function readLines(res: Response, onLine: (line: string) => unknown, abort?: AbortController): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if ((await onLine(line)) === true) {
          abort?.abort();
          await reader.cancel().catch(() => {});
          return;
        }
      }
    }
  } catch (e) {
    if (!abort?.signal.aborted) throw e;
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** GET an SSE route and collect messages until `until` says stop (or `timeoutMs` passes: then it throws with what it saw) */
export async function sse(
  d: Daemon,
  path: string,
  until: (seen: SseMessage[]) => boolean,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<SseMessage[]> {
  const abort = new AbortController();
  const res = await d.fetch(path, { headers, signal: abort.signal });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toStartWith("text/event-stream");
  const seen: SseMessage[] = [];
  let current: SseMessage = {};
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  await readLines(
    res,
    (line) => {
      if (line === "") {
        if (Object.keys(current).length) seen.push(current);
        current = {};
        return until(seen);
      }
      if (line.startsWith(":")) current.comment = line.slice(1).trim();
      else {
        const i = line.indexOf(":");
        const field = line.slice(0, i) as "id" | "event" | "data";
        current[field] = line.slice(i + 1).replace(/^ /, "");
      }
    },
    abort,
  );
  clearTimeout(timer);
  if (!until(seen))
    throw new Error(
      `GET ${path}: the stream ended (or ${timeoutMs} ms passed) before the wanted events; saw:\n${seen.map((m) => JSON.stringify(m)).join("\n")}`,
    );
  return seen;
}

/** the events (not comments) of an SSE message list */
export function events(seen: SseMessage[]): Array<{ id: number; event: string; data: Record<string, any> }> {
  return seen.filter((m) => m.event !== undefined).map((m) => ({ id: Number(m.id), event: m.event!, data: JSON.parse(m.data!) }));
}
