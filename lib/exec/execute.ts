// The one exec path: ExecOptions in, an async stream of frames out, in the order of design §3.
// The CLI, /v1/exec and mcpx_exec all render this stream; nothing else starts a script.

import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { namespaceBindings } from "../codegen/identifiers.ts";
import type { Pool } from "../mcp/pool.ts";
import { callByName, errorText } from "../mcp/tool-call.ts";
import { sha256, writeContentFile } from "../paths/content-file.ts";
import { PushQueue } from "../util/frame-queue.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { Frame, SerializedError } from "./frames.ts";
import type { ExecOptions } from "./options.ts";
import { checkPhases } from "./phase-check.ts";
import { runScript, type CallAnswer, type RunSpec } from "./runner.ts";

export interface ExecContext {
  pool: Pool;
  /** the environment the script starts from, before ExecOptions.env */
  env: Record<string, string | undefined>;
  cacheDir: string;
  sockDir: string;
  /** the CLI hands the script its own stdin; the daemon never does */
  inheritStdin: boolean;
  cwd: string;
  signal?: AbortSignal;
}

export function execute(opts: ExecOptions, ctx: ExecContext): AsyncIterable<Frame> {
  const q = new PushQueue<Frame>();
  void run(opts, ctx, q).finally(() => q.close());
  return q;
}

async function run(opts: ExecOptions, ctx: ExecContext, q: PushQueue<Frame>): Promise<void> {
  const started = performance.now();
  const runId = randomUUID();
  q.push({ type: "start", runId });
  const finish = (outcome: { ok: true; value: unknown } | { ok: false; error: SerializedError }, exitCode: number) => {
    q.push(outcome.ok ? { type: "result", value: outcome.value } : { type: "error", error: outcome.error });
    q.push({ type: "end", exitCode, durationMs: Math.round(performance.now() - started) });
  };

  const cwd = opts.cwd ? resolve(ctx.cwd, opts.cwd) : ctx.cwd;
  const bad = checkPhases(opts.script);
  if (bad) return finish({ ok: false, error: { name: "UsageError", code: "USAGE", message: bad } }, 2);
  let scriptPath: string;
  if (opts.file !== undefined) {
    scriptPath = resolve(cwd, opts.file);
    if (!existsSync(scriptPath)) return finish({ ok: false, error: { name: "UsageError", code: "USAGE", message: `script file not found: ${scriptPath}` } }, 2);
  } else {
    // exec snippets are files too, so every phase applies to them exactly as to a file script
    scriptPath = writeContentFile(join(ctx.cacheDir, "snippets"), "snippet-", ".ts", opts.source ?? "");
  }

  const servers = namespaceBindings(ctx.pool.names()).map((b): [string, string | null] => [b.name, b.hiddenBecause ? null : b.identifier]);

  try {
    const outcome = await runScript(
      {
        runId,
        scriptPath,
        scriptName: opts.name ?? (opts.file !== undefined ? basename(scriptPath).replace(/\.[^.]+$/, "") : "exec"),
        args: opts.args,
        export: opts.export,
        phases: opts.script as RunSpec["phases"],
        runtime: opts.runtime,
        timeoutMs: opts.timeoutMs,
        env: { ...ctx.env, ...opts.env },
        cwd,
        stdin: opts.stdin ?? (ctx.inheritStdin ? "inherit" : ""),
        servers,
        cacheDir: ctx.cacheDir,
        sockDir: ctx.sockDir,
        signal: ctx.signal,
      },
      { frame: (f) => q.push(f), call: (server, tool, args) => gateCall(ctx.pool, server, tool, args, q) },
    );
    finish(outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error! }, outcome.exitCode);
  } catch (err) {
    finish({ ok: false, error: { name: (err as Error).name ?? "Error", code: "RUNTIME", message: String((err as Error).message ?? err) } }, 2);
  }
}

/** one call from the script: forwarded upstream, reported as a call frame, answered to the script */
async function gateCall(pool: Pool, server: string, tool: string, args: Record<string, unknown>, q: PushQueue<Frame>): Promise<CallAnswer> {
  const t0 = performance.now();
  const argsHash = sha256(stableStringify(args)).slice(0, 16);
  const frame = (ok: boolean, extra: { destructiveHint?: boolean; error?: string; tool?: string }) =>
    q.push({ type: "call", server, tool: extra.tool ?? tool, argsHash, durationMs: Math.round((performance.now() - t0) * 100) / 100, ok, destructiveHint: extra.destructiveHint, error: extra.error });
  try {
    const { tool: t, result } = await callByName(pool, server, tool, args);
    const destructiveHint = t.annotations?.destructiveHint === true ? true : t.annotations?.destructiveHint === false ? false : undefined;
    if (result.isError) {
      const message = `${server}.${t.name} failed: ${errorText(result)}`;
      frame(false, { destructiveHint, error: message, tool: t.name });
      return { ok: false, error: { name: "ToolError", code: "TOOL_ERROR", message, data: { server, tool: t.name, raw: result } } };
    }
    frame(true, { destructiveHint, tool: t.name });
    return { ok: true, value: result };
  } catch (err) {
    const e = err as Error & { code?: string };
    frame(false, { error: e.message });
    return { ok: false, error: { name: e.name === "UnknownToolError" ? "ToolError" : e.name, code: e.code ?? "UPSTREAM_ERROR", message: e.message, data: { server, tool, raw: null } } };
  }
}
