// Shared helpers for the issue-2 end-to-end files, on top of harness.ts: a cap on how many mcpx
// processes run at once (tests inside a file run concurrently, and 2 cores cannot take 20 Bun
// starts at a time), config writing, NDJSON frame parsing and the frame-order check.

import { expect } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkFrameOrder } from "../../lib/exec/frame-order.ts";
import type { Frame as ProductFrame } from "../../lib/exec/frames.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUN, MCPX, mcpx as runMcpx, mcpxMerged as runMerged, processesWith, type Result, type Sandbox } from "./harness.ts";

/** at most this many mcpx processes at a time across a file; raising it on 2 cores only adds contention */
const MAX_PARALLEL = 4;
let active = 0;
const waiting: Array<() => void> = [];

async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (active >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  active++;
  try {
    return await fn();
  } finally {
    active--;
    waiting.shift()?.();
  }
}

/** harness.mcpx, capped */
export function mcpx(sb: Sandbox, args: string[], opts: Parameters<typeof runMcpx>[2] = {}): Promise<Result> {
  return slot(() => runMcpx(sb, args, opts));
}

/** harness.mcpxMerged (stdout and stderr on one pipe), capped */
export function mcpxMerged(sb: Sandbox, args: string[], opts: Parameters<typeof runMerged>[2] = {}): Promise<{ code: number; output: string }> {
  return slot(() => runMerged(sb, args, opts));
}

/** asserts an exit code; on a mismatch the failure shows what mcpx said, so a report can quote it */
export function expectExit(r: { code: number; stderr?: string; output?: string }, code: number): void {
  if (r.code !== code) {
    const said = r.stderr ?? r.output ?? "";
    expect(`exit ${r.code}; stderr: ${said.slice(0, 3000)}`).toBe(`exit ${code}`);
  }
  expect(r.code).toBe(code);
}

/** writes a config file (JSON) relative to the sandbox and returns its absolute path */
export function writeConfig(sb: Sandbox, rel: string, config: Record<string, unknown>): string {
  return sb.write(rel, JSON.stringify(config, null, 2) + "\n");
}

/** writes a file as a cloned repository holds it, which nobody has trusted (sb.write trusts a config file it writes) */
export function shipped(sb: Sandbox, rel: string, value: unknown): string {
  const path = join(sb.dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2) + "\n");
  return path;
}

/** the lines of `output` that are exactly one of `markers`, in order: the relative order of phases */
export function markersIn(output: string, markers: readonly string[]): string[] {
  return output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => markers.includes(l));
}

export type Frame = { type: string; [k: string]: unknown };

/** every line of --output stream stdout as a frame; a line that is not JSON fails loudly */
export function parseFrames(stdout: string): Frame[] {
  return stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as Frame;
      } catch {
        throw new Error(`--output stream line ${i + 1} is not JSON: ${l}`);
      }
    });
}

/**
 * The order rules of design §3 that a CLI stream must keep, as a list of broken rules (empty = fine):
 * start first and once, end last and once (but for the artifact.chunk/artifact.end frames of
 * delivery "stream"), exactly one result|error, and after it only suffix hook frames before end.
 */
export function frameOrderProblems(all: Frame[]): string[] {
  const problems: string[] = [];
  // delivery "stream": only an artifact's bytes may follow end
  const lastEnd = all.map((f) => f.type).lastIndexOf("end");
  const frames = lastEnd < 0 ? all : all.slice(0, lastEnd + 1);
  for (const f of all.slice(frames.length))
    if (f.type !== "artifact.chunk" && f.type !== "artifact.end") problems.push(`a ${f.type} frame follows end, where only artifact.chunk/artifact.end may`);
  const types = frames.map((f) => f.type);
  if (types[0] !== "start") problems.push(`first frame is ${types[0]}, not start`);
  if (types.filter((t) => t === "start").length !== 1) problems.push("start is not exactly once");
  if (types[types.length - 1] !== "end") problems.push(`last frame is ${types[types.length - 1]}, not end`);
  if (types.filter((t) => t === "end").length !== 1) problems.push("end is not exactly once");
  const finals = types.flatMap((t, i) => (t === "result" || t === "error" ? [i] : []));
  if (finals.length !== 1) problems.push(`${finals.length} result|error frames, not exactly one`);
  else {
    for (const f of frames.slice(finals[0]! + 1, -1)) {
      if (!(f.type === "hook" && f.phase === "suffix")) problems.push(`a ${f.type} frame follows the final ${types[finals[0]!]}`);
    }
  }
  return problems;
}

/**
 * The product's own frame-order guard (lib/exec/frame-order.ts) over parsed frames: its violations,
 * empty when the stream is well-formed. Tests run it beside frameOrderProblems, an independent
 * restatement of the rules, so a guard that drifted into accepting everything still fails a test.
 */
export function productGuardProblems(frames: Frame[]): string[] {
  return checkFrameOrder(frames as unknown as ProductFrame[]);
}

/** waits until at least n processes carry marker and returns them; throws when they do not within waitMs */
export async function processesAppear(marker: string, n: number, waitMs = 20_000): Promise<number[]> {
  for (let waited = 0; ; waited += 50) {
    const pids = processesWith(marker);
    if (pids.length >= n) return pids;
    if (waited >= waitMs) throw new Error(`only ${pids.length} of ${n} processes with ${marker} appeared within ${waitMs} ms`);
    await Bun.sleep(50);
  }
}

/** waits briefly for processes mentioning marker to go (a pool's close may lag its own exit by a tick), then returns what is left */
export async function leftoverProcesses(marker: string, waitMs = 3000): Promise<number[]> {
  for (let waited = 0; ; waited += 100) {
    const left = processesWith(marker);
    if (left.length === 0 || waited >= waitMs) return left;
    await Bun.sleep(100);
  }
}

/**
 * A line of script source that waits until `condition` (a JavaScript expression, may use await)
 * holds: the way a script waits for something only the test or mcpx can make true, instead of
 * sleeping a guessed time. Polls every 10 ms; after 20 s it throws `never: WHAT`, so a condition that
 * never comes fails the run rather than hanging it.
 */
export function scriptAwaits(condition: string, what: string): string {
  // runtime-neutral: the script may run on Deno (a sandboxed mcpx_exec) as well as Bun
  return (
    `for (const until = Date.now() + 20_000; !(${condition}); await new Promise((r) => ` +
    `setTimeout(r, 10))) if (Date.now() > until) throw new ` +
    `Error(${JSON.stringify(`never: ${what}`)});`
  );
}

/** the script-side expression "the file exists", for scriptAwaits */
export const fileExists = (path: string): string => `(await import("node:fs")).existsSync(${JSON.stringify(path)})`;

/**
 * Runs held until the test lets them go, each seen started by itself: `source` writes a file of its
 * own in `dir` when it starts, then waits for `release` (scriptAwaits) and returns "released". A
 * sandboxed run needs `sandboxAllow` in the server's exec.sandboxAllow. For counting runs going at once.
 */
export function heldRuns(sb: Sandbox, label: string) {
  const dir = join(sb.dir, `${label}-runs`);
  const releaseFile = join(sb.dir, `${label}-release`);
  mkdirSync(dir, { recursive: true });
  const started = () => readdirSync(dir).length;
  return {
    source: [
      `(await import("node:fs")).writeFileSync(${JSON.stringify(dir)} + "/running-" + crypto.randomUUID(), "");`,
      scriptAwaits(fileExists(releaseFile), "the test released the runs"),
      'return "released";',
    ].join("\n"),
    sandboxAllow: [{ read: [sb.dir], write: [dir] }],
    /** how many runs have started so far */
    started,
    /** waits (bounded) until n runs have said they started */
    async startedAtLeast(n: number): Promise<void> {
      for (let waited = 0; started() < n; waited += 20) {
        if (waited > 30_000) throw new Error(`only ${started()} of ${n} runs started within 30 s`);
        await Bun.sleep(20);
      }
    },
    release: () => {
      if (!existsSync(releaseFile)) writeFileSync(releaseFile, "");
    },
  };
}

/** a marker no other test (or earlier run) can have used */
export function uniqueMarker(label: string): string {
  return `mcpx-e2e-${label}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/** `mcpx serve` in the sandbox, with a connected SDK client */
export interface Served {
  client: Client;
  stderr(): string;
  /** whether the client's connection closed (on a message over the SDK's 10 MiB, among others) */
  closed(): boolean;
  close(): Promise<void>;
}

export async function serve(sb: Sandbox, env: Record<string, string> = {}): Promise<Served> {
  const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: { ...sb.env, ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "serve-e2e", version: "0" });
  let closed = false;
  client.onclose = () => (closed = true);
  await client.connect(transport);
  return { client, stderr: () => stderr, closed: () => closed, close: () => client.close() };
}

/**
 * A fixture server on Streamable HTTP (or legacy SSE), started with `env` (its knobs pick the port:
 * FAKE_MCP_HTTP_PORT=0, MODERN_MCP_HTTP_PORT=0), once it printed `listening <port>`: its origin,
 * its /mcp URL, and how to end it.
 */
export async function httpFixture(script: string, env: Record<string, string | undefined>): Promise<{ origin: string; url: string; stop(): Promise<void> }> {
  const proc = Bun.spawn([BUN, script], { env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const decoder = new TextDecoder();
  let seen = "";
  for await (const chunk of proc.stderr) {
    seen += decoder.decode(chunk, { stream: true });
    const m = /listening (\d+)/.exec(seen);
    if (m) {
      const origin = `http://127.0.0.1:${m[1]}`;
      return {
        origin,
        url: `${origin}/mcp`,
        stop: async () => {
          proc.kill("SIGTERM");
          await proc.exited;
        },
      };
    }
  }
  throw new Error(`${script} ended before listening: ${seen}`);
}

/** waits (bounded, 20 s) for a condition another process makes true; throws `failure` when it never does */
export async function until(condition: () => boolean, failure: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 20_000) throw new Error(failure);
    await Bun.sleep(20);
  }
}
