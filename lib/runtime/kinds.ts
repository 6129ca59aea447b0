// The script runtimes, as one table of kinds: the binary itself as Bun (the default, nothing else
// installed), Deno 2 and Node from PATH (or a project's node_modules/.bin, see findRuntime). Each
// kind says how its command line is made, the shape it is started in before its run, how it is handed
// the run, and which launcher it runs: the launcher is the same text on all three, Node only gets it
// transpiled. A sandboxed run is Deno's command with the sandbox's permissions in place of
// --allow-all (sandbox-args.ts). The embedded QuickJS sandbox is no row here: it is no process, has
// no command line, shape or fd 3, and runner.ts hands its runs to quickjs-run.ts (decision 0023).

import { dirname, join } from "node:path";
import { McpxError } from "../errors/mcpx-error.ts";
import { ancestors } from "../paths/ancestors.ts";
import { findExecutable } from "../paths/executable.ts";
import { canPipe } from "../process/fd-pairs.ts";
import type { RuntimeName } from "../settings/choices.ts";
import { nodeLauncher, nodeRuntime, readyEntry } from "./launcher-files.ts";

export type { RuntimeName };

/** the script's runtime is not installed: exit 2 (lib/errors/codes.ts RUNTIME) */
export class RuntimeError extends McpxError {
  constructor(message: string) {
    super(message, "RUNTIME");
  }
}

/** the runtimes a run goes to; "auto" is Bun unsandboxed and Deno in the sandbox (kindOf) */
export type Kind = "bun" | "deno" | "node";

interface RuntimeCommand {
  argv: string[];
  env: Record<string, string>;
}

interface CommandOptions {
  /** exec.autoInstall: let the runtime download packages a script imports */
  autoInstall: boolean;
  /** the run's heap limit in MiB (0: none) */
  heapMb: number;
  /** Deno's permission flags in place of --allow-all: a sandboxed run's (sandbox-args.ts denoSandboxArgs) */
  permissions?: string[];
}

/** what a runtime is started with, all fixed at its start (ready-runtime.ts says why each) */
export interface RuntimeShape {
  kind: Kind;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** "pipe": the run's stdin is written to it when the run is handed over */
  stdin: "inherit" | "pipe";
  /** the heap limit in MiB (0: none): V8's flag is in argv, and a V8 runtime's data limit is set at its start (lib/process/data-limit.ts) */
  heapMb: number;
}

interface ShapeOptions {
  cacheDir: string;
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: "inherit" | "pipe";
  /** the run's heap limit in MiB (exec.maxHeap, exec.agentMaxHeap); absent or 0: none */
  heapMb?: number;
  /** exec.autoInstall; absent: off */
  autoInstall?: boolean;
}

interface KindRow {
  /** the command line running entry */
  command(entry: string, how: CommandOptions): RuntimeCommand;
  /** the shape of one started before its run in cwd with this environment; undefined: it starts with its run */
  shape(runtimeFile: string, how: ShapeOptions): RuntimeShape | undefined;
  /**
   * fd 3, on which it is handed its run: a socket pair, which no other process can open through /proc
   * (decision 0012); a pipe for Deno, which opens its fd 3 as /dev/fd/3, as a socket cannot be
   */
  handoff: "socket" | "pipe";
  /** whether a data limit is set on it: the embedded Bun takes none (lib/process/data-limit.ts says why) */
  dataLimit: boolean;
  /** the launcher it runs, from the one runner.ts writes for the run */
  launcher(launcher: string, run: { runtimeFile: string; cacheDir: string; scriptPath: string }): string;
}

const asWritten = (launcher: string) => launcher;

export const KINDS: Record<Kind, KindRow> = {
  bun: {
    // BUN_BE_BUN makes the compiled mcpx behave as the plain bun CLI; the launcher removes it again so
    // that a child the script starts, such as mcpx itself, is not bun. --no-install: an import of a
    // package the project lacks is an error, never a download (exec.autoInstall).
    command: (entry, how) => ({ argv: [process.execPath, "run", ...(how.autoInstall ? [] : ["--no-install"]), entry], env: { BUN_BE_BUN: "1" } }),
    shape: (runtimeFile, how) => shapeOf("bun", readyEntry(how.cacheDir, runtimeFile), how),
    handoff: "socket",
    dataLimit: false,
    launcher: asWritten,
  },
  deno: {
    command: denoCommand,
    // where no pipe can be made for its handoff, it starts with its run (runner.ts)
    shape: (runtimeFile, how) => (canPipe() ? shapeOf("deno", readyEntry(how.cacheDir, runtimeFile), how) : undefined),
    handoff: "pipe",
    dataLimit: true,
    launcher: asWritten,
  },
  node: {
    command: (entry, how) => {
      const node = findRuntime("node");
      if (!node)
        throw new RuntimeError(
          `script.runtime is node, but node is not on PATH nor in a node_modules/.bin ` +
            `above ${process.cwd()} or the mcpx binary: install Node.js, or use --runtime bun (the embedded runtime)`,
        );
      return { argv: [node, ...v8HeapFlag(how.heapMb), entry], env: {} };
    },
    // its entry imports the runtime transpiled for Node, which every Node launcher imports
    shape: (runtimeFile, how) => shapeOf("node", readyEntry(how.cacheDir, nodeRuntime(how.cacheDir, runtimeFile)), how),
    handoff: "socket",
    dataLimit: true,
    launcher: (launcher, run) => nodeLauncher(launcher, run.runtimeFile, run.cacheDir, run.scriptPath),
  },
};

/**
 * the process kind a run of script.runtime `name` goes to: auto is the embedded Bun, and a sandboxed
 * run not on QuickJS is Deno (execute() refuses bun and node there)
 */
export function kindOf(name: RuntimeName, sandboxed: boolean): Kind {
  if (sandboxed || name === "deno") return "deno";
  return name === "node" ? "node" : "bun";
}

/** a runtime's shape from its command line running entry, with the run's environment under the command's own */
function shapeOf(kind: Kind, entry: string, how: ShapeOptions): RuntimeShape {
  const cmd = KINDS[kind].command(entry, { autoInstall: how.autoInstall ?? false, heapMb: how.heapMb ?? 0 });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...how.env, ...cmd.env })) if (v !== undefined) env[k] = v;
  return { kind, argv: cmd.argv, env, cwd: how.cwd, stdin: how.stdin, heapMb: how.heapMb ?? 0 };
}

/** V8's own heap limit (Deno's and Node's), where a run has one: the old space, where a memory bomb's objects live */
function v8HeapFlag(heapMb: number | undefined): string[] {
  return heapMb ? [`--max-old-space-size=${heapMb}`] : [];
}

/**
 * Deno running entry: with every permission and no prompt, or a sandboxed run's permissions only.
 * Never a fallback to an unsandboxed runtime: a sandboxed run with no Deno is an error saying how to
 * get one or how to opt out.
 */
function denoCommand(entry: string, how: CommandOptions): RuntimeCommand {
  const deno = findRuntime("deno");
  if (!deno && how.permissions) {
    throw new RuntimeError(
      `exec.sandbox is on, and the sandbox runs scripts on Deno, which is not on PATH nor in a ` +
        `node_modules/.bin above ${process.cwd()} or the mcpx binary: install Deno 2 (npm i -D ` +
        `deno), or opt out of the sandbox with --sandbox off (MCPX_EXEC_SANDBOX=off, or "exec": ` +
        `{"sandbox": "off"} in .mcpx.json). The run was not started: it never falls back to running unsandboxed`,
    );
  }
  if (!deno)
    throw new RuntimeError(
      `script.runtime is deno, but deno is not on PATH nor in a node_modules/.bin ` +
        `above ${process.cwd()} or the mcpx binary: install Deno 2 (npm i -D deno works), or use ` +
        `--runtime bun (the embedded runtime)`,
    );
  // --cached-only: npm: and remote imports come from Deno's cache or fail, never from a download;
  // Deno passes V8's flags on in one flag of its own
  const permissions = how.permissions ?? ["--allow-all", "--no-prompt"];
  return {
    argv: [
      deno,
      "run",
      ...permissions,
      "--quiet",
      ...(how.autoInstall ? [] : ["--cached-only"]),
      ...v8HeapFlag(how.heapMb).map((f) => `--v8-flags=${f}`),
      entry,
    ],
    env: { DENO_NO_UPDATE_CHECK: "1" },
  };
}

/**
 * A runtime program: on PATH first, found as a shell would find it; then in node_modules/.bin walking
 * up from the working directory, then from the mcpx binary's directory. The fallbacks are for the
 * npm way of installing Deno (`npm i -D deno`), which puts it in node_modules/.bin and not on PATH,
 * as it is for this repository's own dist/mcpx.
 */
export function findRuntime(cmd: string): string | undefined {
  const found = findExecutable(cmd, process.cwd(), process.env.PATH);
  if (found.ok) return found.path;
  const bins = [...ancestors(process.cwd()), ...ancestors(dirname(process.execPath))].map((d) => join(d, "node_modules", ".bin"));
  const local = findExecutable(cmd, process.cwd(), bins.join(":"));
  return local.ok ? local.path : undefined;
}
