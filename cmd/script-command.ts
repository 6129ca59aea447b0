// `run` and `exec` are one command with two ways to name the script: parse flags → ExecOptions →
// the one exec path → render. Everything they accept is either a registry setting or listed here.
// The run itself is script-local.ts's or, with --remote, script-remote.ts's.

import { DELIVERY_MODES, OUTPUT_MODES, type OutputMode } from "../lib/exec/options.ts";
import { checkArtifactDir, type ArtifactTarget } from "../lib/render/artifact-files.ts";
import type { RenderOptions } from "../lib/render/frames-to-cli.ts";
import type { ExecOptions } from "../lib/exec/options-schema.ts";
import { isSkillPath, resolveScriptPath } from "../lib/paths/script-path.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { refuseAdHocRemote, sessionWithAdHoc } from "./ad-hoc.ts";
import { AD_HOC_FLAGS, SCRIPT_FLAGS } from "./own-flags.ts";
import { remoteByFlag, wantsDaemon } from "./wants-daemon.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { cittyArgs } from "./help.ts";
import { trace } from "../lib/util/trace.ts";

export function scriptCommand(kind: "run" | "exec") {
  return defineCommand({
    meta: {
      name: kind,
      description: COMMAND_DESCRIPTIONS[kind],
    },
    args: cittyArgs(
      kind,
      { ...SCRIPT_FLAGS, ...AD_HOC_FLAGS },
      kind === "run" ? { name: "script", description: "file or named script" } : { name: "snippet", description: "TypeScript source" },
    ),
    async run({ rawArgs }) {
      process.exitCode = await runScriptCommand(kind, rawArgs);
    },
  });
}

async function runScriptCommand(kind: "run" | "exec", argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(kind, argv, { ...SCRIPT_FLAGS, ...AD_HOC_FLAGS });
  const [target, ...more] = parsed.positionals;
  if (target === undefined) throw new UsageError(kind === "run" ? "needs a script: mcpx run FILE [ARGS…]" : "needs a snippet: mcpx exec 'console.log(1)'");
  if (kind === "exec" && more.length > 0)
    throw new UsageError(`takes one snippet; got ${more.length + 1} arguments (quote the snippet, or pass script arguments after --)`);
  const session = sessionWithAdHoc(parsed);
  // a run needs every phase, hook and exec setting in force: none may be an untrusted file's (exit 2)
  refuseUntrusted(session.trust, kind);
  const remote = wantsDaemon(parsed.own, session);
  if (remote) refuseAdHocRemote(parsed.own);
  trace("config");

  const opts: ExecOptions = {
    args: [...more, ...parsed.rest],
    export: parsed.own.export as string | undefined,
    script: session.phases(),
    // configured hooks are in force through the engine's gate; ExecOptions.hooks is for per-run extras
    hooks: [],
    runtime: session.get("script.runtime"),
    sandbox: session.get("exec.sandbox"),
    timeoutMs: session.get("exec.timeout"),
    env: parseEnvFlags((parsed.own.env as string[] | undefined) ?? []),
    output: outputMode(parsed.own.json === true, parsed.own.output as string | undefined),
    ...deliveryMode(parsed.own.delivery as string | undefined),
    // a local run's limits are in force through its engine's gate; --remote carries them (remote.ts)
    settings: {},
  };
  if (kind === "run") {
    const file = resolveScriptPath(target, session.cwd);
    if (!file) throw new UsageError(scriptNotFound(target, session.cwd));
    opts.file = file;
    if (isSkillPath(file) && opts.export === undefined) skillArgs(opts, target);
  } else if (target === "-") {
    // the snippet from stdin (a heredoc, a pipe): stdin is then spent, so the script reads none
    opts.source = await new Response(Bun.stdin.stream()).text();
    opts.stdin = "";
  } else opts.source = target;
  const artifacts = artifactTarget(parsed.own);
  // how either way's frames are shown: one rendering, so a remote run prints what a local one does
  const render: RenderOptions = {
    mode: opts.output!,
    format: session.get("logging.format"),
    level: session.get("logging.level"),
    ...(artifacts ? { artifacts } : {}),
  };
  // each way loads only its own code: a remote run needs no engine, a local one no daemon client
  if (remote) {
    // a runtime was started early only when --remote was not on the command line (main.ts); the run is the daemon's
    const early = remoteByFlag(parsed.own) ? undefined : await import("./early-runtime.ts");
    await early?.endEarlyRuntime();
    return (await import("./script-remote.ts")).runRemote(opts, session, kind, render, early?.commandHandlesSignals);
  }
  return (await import("./script-local.ts")).runLocal(opts, session, render);
}

function outputMode(json: boolean, output: string | undefined): OutputMode {
  if (output !== undefined && !(OUTPUT_MODES as readonly string[]).includes(output))
    throw new UsageError(`--output ${output}: use one of ${OUTPUT_MODES.join(", ")}`);
  if (json && output !== undefined && output !== "json") throw new UsageError(`--json and --output ${output} disagree: use one of them`);
  return json ? "json" : ((output as OutputMode | undefined) ?? "text");
}

function deliveryMode(delivery: string | undefined): Pick<ExecOptions, "delivery"> {
  if (delivery === undefined) return {};
  if (!(DELIVERY_MODES as readonly string[]).includes(delivery)) throw new UsageError(`--delivery ${delivery}: use one of ${DELIVERY_MODES.join(", ")}`);
  return { delivery: delivery as ExecOptions["delivery"] };
}

/** --artifacts DIR [--force]: checked before the run, so a missing directory costs no run */
function artifactTarget(own: Record<string, unknown>): ArtifactTarget | undefined {
  const dir = own.artifacts as string | undefined;
  if (dir === undefined) {
    if (own.force === true) throw new UsageError("--force replaces files --artifacts DIR writes: give --artifacts DIR too");
    return undefined;
  }
  checkArtifactDir(dir);
  return { dir, force: own.force === true };
}

function parseEnvFlags(list: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new UsageError(`--env ${item}: use KEY=VALUE`);
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

/** where `mcpx run NAME` looked (lib/paths/script-path.ts): the file, then .mcpx/scripts/NAME[.ts…] unless NAME is a path */
function scriptNotFound(target: string, cwd: string): string {
  if (target.includes("/")) return `script not found: ${target} (no such file)`;
  const named = /\.[cm]?[jt]s$/.test(target) ? target : `${target}.ts`;
  return `script not found: ${target} (not a file, and no .mcpx/scripts/${named} from ${cwd} up)`;
}

/** a skill's default export takes one object, the tool's arguments: given on the command line as one JSON argument */
function skillArgs(opts: ExecOptions, target: string): void {
  const given = opts.args;
  let value: unknown = {};
  try {
    if (given.length > 1) throw new Error();
    if (given.length === 1) value = JSON.parse(given[0]!);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError(`mcpx run ${target}: a skill takes its arguments as one JSON object: mcpx run ${target} '{"key": "value"}' (or none: {})`);
  opts.export = "default";
  // the default export is called with the object itself, as a served call of the skill does
  opts.args = [value as unknown as string];
}
