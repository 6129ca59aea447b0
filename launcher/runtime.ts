// The in-script half of mcpx: imported first by every generated launcher, on Bun, Deno or Node.
// Runtime-neutral on purpose: only node: builtins that all three implement, no npm:/remote imports.
//
// Wire (the host half is lib/runtime/runner.ts; every message is declared in wire.ts):
//   fd 3  the handoff: the run, its channel's secrets included, read once and emptied before the
//         script runs, so the script never finds them (decision 0007).
//   fd 1  the ordered stream. Plain text is the script's stdout; a line that starts with
//         RS + nonce is a frame (JSON). Writes are synchronous so that process.exit() loses nothing
//         and stdout, stderr, logs, emits and call requests keep the order they were written in.
//   sock  a per-run unix socket, authenticated by a token, that carries call answers back.

// The template's API (launcher/template.ts) is exported here; the work is done by the modules below:
// handoff.ts (the run handed over, evaluated first), capture.ts (output capture, installed at import),
// channel.ts (the calls), script-load.ts (the script's import and entry), serialize.ts (frames' JSON).

import { installCapture } from "./capture.ts";
import { callTool, endChannel, feature, namespace } from "./channel.ts";
import { frame, info, proc, sys } from "./handoff.ts";
import { safeJson, serializeError, ToolError } from "./serialize.ts";
import type { LogLevel } from "./wire.ts";
import { workspaceGlobal } from "./workspace.ts";
import { artifact } from "./artifact.ts";

export { handedLauncher } from "./handoff.ts";
export { callEntry, loadError, scriptUrl } from "./script-load.ts";

installCapture();

// ── globals ──────────────────────────────────────────────────────────────────

export const result: { value?: unknown; error?: unknown } = {};

const logAt =
  (level: LogLevel) =>
  (...args: unknown[]) =>
    frame({ t: "log", level, msg: sys.format(args) });

/**
 * Installs log, emit, script, result and ToolError: they need no server, so they are there before the
 * before phase runs (decision 0005). The tool globals wait for installGlobals.
 */
export function installBaseGlobals(): void {
  const log = Object.assign(logAt("info"), { debug: logAt("debug"), info: logAt("info"), warn: logAt("warn"), error: logAt("error") });
  Object.assign(globalThis as Record<string, unknown>, {
    log,
    emit: (value: unknown) => frame({ t: "emit", v: value }),
    script: Object.freeze({ ...info.script, runId: info.runId }),
    result,
    ToolError,
  });
}

/** installs the tool globals after the before phase: one namespace per server, tools, call, resources, prompts, workspace and artifact */
export async function installGlobals(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  const tools: Record<string, unknown> = {};
  for (const { name, global } of info.servers) {
    tools[name] = namespace(name);
    if (global) g[global] = tools[name];
  }
  const resources = Object.freeze({ read: (server: unknown, uri: unknown) => feature("resource.read", server, uri) });
  const prompts = Object.freeze({ get: (server: unknown, name: unknown, args?: unknown) => feature("prompt.get", server, name, args) });
  Object.assign(g, { tools, call: callTool, resources, prompts, workspace: workspaceGlobal(), artifact });
}

/**
 * The error a phase line threw, with "(script.PHASE line N, from ORIGIN)" appended to its message, so
 * every surface that shows the message shows where the line came from. The error the phase was handed
 * (result.error, rethrown by an onError line) is the script's own and stays as it was; a thrown
 * non-Error becomes an Error carrying its text.
 */
export function phaseError(err: unknown, where: string): unknown {
  if (!where || (err === result.error && err !== undefined)) return err;
  if (err instanceof Error) {
    try {
      err.message = `${err.message} (${where})`;
      return err;
    } catch {
      // a frozen error: report a copy that says where it came from
      const copy = new Error(`${err.message} (${where})`);
      copy.name = err.name;
      return copy;
    }
  }
  return new Error(`${typeof err === "string" ? err : (safeJson(err) ?? String(err))} (${where})`);
}

/**
 * An onError or suffix line threw: said as an error log (stderr, the envelope's logs), and the run's
 * outcome stands, so that neither the script's own error nor the line's is lost. An onError line
 * that rethrows result.error has said nothing new.
 */
export function phaseFailed(phase: "onError" | "suffix", err: unknown): void {
  if (phase === "onError" && err === result.error) return;
  const message = err instanceof Error ? `${err.name}: ${err.message}` : typeof err === "string" ? err : safeJson(err);
  const stands = phase === "onError" ? "the script's own error stands" : "the run's outcome stands";
  frame({ t: "log", level: "error", msg: `script.${phase} failed, and ${stands}: ${message}` });
}

/** the launcher's last word: one result or error marker, then a natural exit */
export function finish(ok: boolean): void {
  if (ok) frame({ t: "result", v: result.value === undefined ? null : result.value, u: result.value === undefined });
  else {
    frame({ t: "error", e: serializeError(result.error) });
    proc.exitCode = 1;
  }
  endChannel();
}
