// A run of `mcpx run` / `mcpx exec` on this machine: the engine (gate, pool, hooks) opened from the
// session, the one exec path, its frames rendered. Loaded only for a local run (script-command.ts).

import { execute } from "../lib/exec/execute.ts";
import { runLimits, sandboxContext } from "../lib/exec/door-policy.ts";
import type { ExecOptions } from "../lib/exec/options-schema.ts";
import { settingsPhaseOrigins } from "../lib/exec/phase-origins.ts";
import { renderFrames, type RenderOptions } from "../lib/render/frames-to-cli.ts";
import { abortOnSignals } from "../lib/process/interruption.ts";
import type { Session } from "../lib/session/session.ts";
import { trace } from "../lib/util/trace.ts";
import { commandHandlesSignals, earlyRuntime } from "./early-runtime.ts";
import { terminalEngine } from "./terminal-engine.ts";

export async function runLocal(opts: ExecOptions, session: Session, render: RenderOptions): Promise<number> {
  const signals = abortOnSignals();
  commandHandlesSignals();
  const engine = await terminalEngine(session);
  trace("engine");
  try {
    const frames = execute(opts, {
      engine,
      gate: engine.gate,
      env: process.env,
      cacheDir: session.cacheDir,
      sockDir: session.sockDir,
      inheritStdin: true,
      cwd: session.cwd,
      signal: signals.signal,
      sandbox: sandboxContext(session, "cli"),
      limits: runLimits(session, "cli"),
      phaseOrigins: settingsPhaseOrigins(session.settings),
      runtimes: earlyRuntime(),
    });
    const code = await renderFrames(frames, render);
    // loaded only here: type generation is not on the way to the script's first output
    if (opts.file)
      await import("../lib/codegen/globals-file.ts")
        .then(({ writeGlobalsBeside }) => writeGlobalsBeside(opts.file!, session.cacheDir, engine.pool))
        .catch((e) => session.log("debug", `mcpx-globals.d.ts not written: ${e?.message ?? e}`));
    return code;
  } finally {
    signals.stop();
    await engine.close();
  }
}
