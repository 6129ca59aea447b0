// Shared helpers for the hook-gate end-to-end files, on top of harness.ts and support.ts:
// a sandbox whose config names the fake fixture server, hook actions built from the scripts in
// hook-scripts/, runs of `mcpx exec` with hooks given through MCPX_HOOKS (so concurrent tests never
// share a config), and readers for the hook frames and the fixture's record file.
//
// Hooks go in MCPX_HOOKS rather than a config file: the fake server inherits mcpx's environment
// (minus MCPX_*), so one config serves every test and each test passes its own FAKE_MCP_RECORD and
// knobs. Tests that are about config files (origins, load-time errors) write their own.

import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { recordedCalls, recordedStarts } from "../../fixtures/servers/record.ts";
import type { HookFrameBody } from "../../lib/exec/frames.ts";
import { BUN, fakeServer, sandbox, type Result, type Sandbox } from "./harness.ts";
import { mcpx, parseFrames, writeConfig, type Frame } from "./support.ts";

export { recordedCalls, recordedStarts };

const HOOK_SCRIPTS = join(import.meta.dir, "hook-scripts");
export const script = (name: string) => join(HOOK_SCRIPTS, name);

/** a run hook that reads its stdin and answers with `answer` (JSON-encoded unless a string); with `saveTo`, it saves its stdin there */
export function say(answer: unknown, saveTo?: string): string[] {
  const text = typeof answer === "string" ? answer : JSON.stringify(answer);
  return ["sh", script("say.sh"), text, ...(saveTo === undefined ? [] : [saveTo])];
}

/** a run hook through bun: `["bun", FILE]` */
export function bunHook(file: string): string[] {
  return [BUN, file];
}

/** a sandbox whose .mcpx.json names the fake server (no knobs: each test passes its own through the environment) */
export function hookSandbox(extraServers: Record<string, unknown> = {}): Sandbox {
  const sb = sandbox();
  writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer(), ...extraServers } });
  return sb;
}

/**
 * copies a file from hook-scripts/ into the sandbox (mcpx writes mcpx-globals.d.ts beside a script it runs, so module hooks
 * run from there, not from the repository)
 */
export function copyScript(sb: Sandbox, name: string, as = name): string {
  const to = join(sb.dir, as);
  copyFileSync(script(name), to);
  return to;
}

/** writes an executable file into the sandbox */
export function writeExecutable(sb: Sandbox, rel: string, text: string): string {
  const p = sb.write(rel, text);
  chmodSync(p, 0o755);
  return p;
}

let counter = 0;
/** a fresh record-file path in the sandbox, for FAKE_MCP_RECORD */
export function recordPath(sb: Sandbox, label = "record"): string {
  return join(sb.dir, `${label}-${++counter}.jsonl`);
}

export interface RunOptions {
  hooks?: unknown[];
  env?: Record<string, string>;
  /** flags after the subcommand, before the snippet */
  flags?: string[];
  /** script arguments (after --) */
  args?: string[];
  /** FAKE_MCP_RECORD for this run */
  record?: string;
}

function runEnv(o: RunOptions): Record<string, string> {
  return {
    ...(o.hooks === undefined ? {} : { MCPX_HOOKS: JSON.stringify(o.hooks) }),
    ...(o.record === undefined ? {} : { FAKE_MCP_RECORD: o.record }),
    ...o.env,
  };
}

export interface StreamRun extends Result {
  frames: Frame[];
}

/** mcpx exec --output stream SNIPPET: the frames, the exit code and stderr */
export async function execStream(sb: Sandbox, snippet: string, o: RunOptions = {}): Promise<StreamRun> {
  const r = await mcpx(sb, ["exec", "--output", "stream", ...(o.flags ?? []), snippet, ...(o.args ? ["--", ...o.args] : [])], { env: runEnv(o) });
  let frames: Frame[];
  try {
    frames = parseFrames(r.stdout);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nstderr: ${r.stderr}`);
  }
  return { ...r, frames };
}

/** mcpx exec SNIPPET in the default text output: stdout is the script's, stderr has logs, advice and hook failures */
export function execText(sb: Sandbox, snippet: string, o: RunOptions = {}): Promise<Result> {
  return mcpx(sb, ["exec", ...(o.flags ?? []), snippet, ...(o.args ? ["--", ...o.args] : [])], { env: runEnv(o) });
}

/** any mcpx command with the same environment handling */
export function mcpxWith(sb: Sandbox, argv: string[], o: RunOptions = {}): Promise<Result> {
  return mcpx(sb, argv, { env: runEnv(o) });
}

/** a parsed hook frame: the product's own HookFrameBody, so the tests cannot drift from it */
export type HookFrame = Frame & HookFrameBody & { name: string };

export function hookFrames(frames: Frame[], filter: { on?: string; phase?: string; name?: string } = {}): HookFrame[] {
  return frames.filter(
    (f): f is HookFrame =>
      f.type === "hook" &&
      (filter.on === undefined || f.on === filter.on) &&
      (filter.phase === undefined || f.phase === filter.phase) &&
      (filter.name === undefined || f.name === filter.name),
  );
}

/** the one hook frame of the hook with this name; fails the test with the frames when there is not exactly one */
export function onlyHookFrame(frames: Frame[], name: string): HookFrame {
  const found = hookFrames(frames, { name });
  if (found.length !== 1)
    throw new Error(`expected exactly one hook frame named ${name}, got ${found.length}:\n${frames.map((f) => JSON.stringify(f)).join("\n")}`);
  return found[0]!;
}

export function finalFrame(frames: Frame[]): Frame | undefined {
  return frames.find((f) => f.type === "result" || f.type === "error");
}

/** what the script wrote to stdout, from the stdout frames */
export function stdoutOf(frames: Frame[]): string {
  return frames
    .filter((f) => f.type === "stdout")
    .map((f) => String(f.data))
    .join("");
}

/** the first stdout line the script printed, parsed as JSON */
export function printed<T = Record<string, unknown>>(frames: Frame[]): T {
  const out = stdoutOf(frames).trim();
  try {
    return JSON.parse(out.split("\n")[0]!) as T;
  } catch {
    throw new Error(`the script did not print JSON: ${JSON.stringify(out)}\nframes:\n${frames.map((f) => JSON.stringify(f)).join("\n")}`);
  }
}

/**
 * A snippet that awaits `expr` and prints one JSON line: {ok: true, value} or the caught error's
 * {ok: false, name, code, message, isToolError}. The run itself succeeds either way.
 */
export function tryCall(expr: string): string {
  return (
    `try { const value = await ${expr}; console.log(JSON.stringify({ ok: true, value })) } ` +
    `catch (e) { console.log(JSON.stringify({ ok: false, name: e.name, code: e.code, message: ` +
    `e.message, isToolError: e instanceof ToolError })) }`
  );
}

/** the hook frames and the run, rendered for a failure message */
function show(r: { code: number; stderr: string; frames?: Frame[]; stdout?: string }): string {
  return `exit ${r.code}\nstderr: ${r.stderr}\n${r.frames ? r.frames.map((f) => JSON.stringify(f)).join("\n") : `stdout: ${r.stdout}`}`;
}

/** asserts the exit code, failing with the run's stderr and frames so the cause is visible */
export function expectExit(r: { code: number; stderr: string; frames?: Frame[]; stdout?: string }, code: number): void {
  if (r.code !== code) throw new Error(`expected exit ${code}, got ${show(r)}`);
}
