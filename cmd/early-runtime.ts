// The script runtime of `mcpx run`/`exec`, started by main.ts before the command's own code loads,
// so that Bun's start-up overlaps loading the command, reading config and opening the engine. It is
// a guess from the raw argv at the shape most runs have (Bun, unsandboxed, here, this environment):
// the run takes it only if its real shape is exactly that, else ends it and starts its own
// (lib/exec/runtime-sources.ts), so a wrong guess costs a start, never a difference.

import { bunShape, type RuntimeShape } from "../lib/exec/ready-runtime.ts";
import { builtRuntimeBundle } from "../lib/exec/launcher-files.ts";
import { startEarly, type EarlyRuntime } from "../lib/exec/runtime-sources.ts";
import { scriptEnv } from "../lib/exec/script-env.ts";
import { cacheDir } from "../lib/paths/dirs.ts";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { runBeforeExit } from "../lib/util/before-exit.ts";

let early: EarlyRuntime | undefined;
/** stops handling SIGINT/SIGTERM here, once the command handles them itself */
let handOverSignals: (() => void) | undefined;

/** starts the guess for `mcpx run|exec ARGV…` (argv after the command name); none for --remote, whose run is the daemon's */
export function startEarlyRuntime(kind: "run" | "exec", argv: string[]): void {
  const head = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (head.includes("--remote")) return;
  // a run the command line sends elsewhere than an unsandboxed Bun would never take it
  const runtime = flagValue(head, "--runtime");
  const sandbox = flagValue(head, "--sandbox");
  if ((runtime !== undefined && runtime !== "bun" && runtime !== "auto") || (sandbox !== undefined && sandbox !== "off")) return;
  // a Ctrl-C before the command handles signals itself (it loads, reads config) would kill mcpx by the
  // default action and leave the runtime (and the host's watcher) to init: with a handler, Bun queues
  // the signal, and if it is handled here, not by the command, the runtime is ended and reaped first
  const onSignal = () =>
    void endEarlyRuntime()
      .then(runBeforeExit)
      .finally(() => process.exit(exitCodeOf("INTERRUPTED")));
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  handOverSignals = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  early = startEarly(() => shapeFromArgv(kind, head));
}

/** the command handles SIGINT and SIGTERM from here on (an interrupted run ends its runtime itself) */
export function commandHandlesSignals(): void {
  handOverSignals?.();
  handOverSignals = undefined;
}

/** the value of `--flag VALUE` or `--flag=VALUE` in the raw argv, if given */
function flagValue(head: string[], flag: string): string | undefined {
  const i = head.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return head[i] === flag ? head[i + 1] : head[i]!.slice(flag.length + 1);
}

/** the guess, for the run to take if it fits (the command's finally still ends it with endEarlyRuntime) */
export function earlyRuntime(): EarlyRuntime | undefined {
  return early;
}

/** ends the guess unless a run took it: a runtime that never got a run must not outlive mcpx */
export async function endEarlyRuntime(): Promise<void> {
  await early?.close();
}

function shapeFromArgv(kind: "run" | "exec", head: string[]): RuntimeShape | undefined {
  const dir = cacheDir(process.env);
  // the first run builds the bundle, and starts its own runtime
  const bundle = builtRuntimeBundle(dir);
  if (!bundle.exists) return undefined;
  const env: Record<string, string> = {};
  head.forEach((a, i) => {
    const item = a === "--env" ? head[i + 1] : a.startsWith("--env=") ? a.slice(6) : undefined;
    const eq = item?.indexOf("=") ?? -1;
    if (item && eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
  });
  // `exec -` reads the snippet from stdin, so the script's stdin is a pipe (cmd/script-command.ts)
  const stdin = kind === "exec" && head.includes("-") ? "pipe" : "inherit";
  // as execute() shapes a default run: session.cwd is process.cwd(), exec.autoInstall is off
  return bunShape(bundle.path, { cacheDir: dir, env: scriptEnv(process.env, env), cwd: process.cwd(), stdin, autoInstall: false });
}
