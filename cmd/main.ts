// mcpx: the entry point. Commands load lazily, and the top-level help is rendered from the table of
// command descriptions alone, so `mcpx --help` loads no command and never pays for the MCP SDK.
// citty renders help and is loaded only for that (cmd/commands.ts says why).
// An error mcpx expects (a McpxError) exits with the code lib/errors/codes.ts gives it (usage and
// config errors: 2, before anything runs); anything else is a bug: its stack, exit 1. See
// docs/exit-codes.md, which is generated from that table.

import type { CommandDef } from "citty";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { VERSION } from "../lib/version.ts";
import { err, out } from "../lib/util/fd-write.ts";
import { dirErrorLine } from "../lib/paths/dir-errors.ts";
import { runBeforeExit } from "../lib/util/before-exit.ts";
import { trace } from "../lib/util/trace.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { COMMAND_DESCRIPTIONS, COMMAND_EXAMPLES, type Command, type CommandName } from "./commands.ts";

const COMMANDS: Record<CommandName, () => Promise<Command>> = {
  run: () => import("./run.ts").then((m) => m.default),
  exec: () => import("./exec.ts").then((m) => m.default),
  ls: () => import("./ls.ts").then((m) => m.default),
  types: () => import("./types.ts").then((m) => m.default),
  search: () => import("./search.ts").then((m) => m.default),
  call: () => import("./call.ts").then((m) => m.default),
  resource: () => import("./resource.ts").then((m) => m.default),
  prompt: () => import("./prompt.ts").then((m) => m.default),
  settings: () => import("./settings.ts").then((m) => m.default),
  config: () => import("./config.ts").then((m) => m.default),
  hooks: () => import("./hooks.ts").then((m) => m.default),
  serve: () => import("./serve.ts").then((m) => m.default),
  daemon: () => import("./daemon.ts").then((m) => m.default),
  auth: () => import("./auth.ts").then((m) => m.default),
  trust: () => import("./trust.ts").then((m) => m.default),
  doctor: () => import("./doctor.ts").then((m) => m.default),
  completion: () => import("./completion.ts").then((m) => m.default),
  approvals: () => import("./approvals.ts").then((m) => m.default),
  approve: () => import("./approve.ts").then((m) => m.default),
  reject: () => import("./reject.ts").then((m) => m.default),
  audit: () => import("./audit.ts").then((m) => m.default),
};

/** mcpx itself, for the usage text: each command's name and description, without loading it */
const MAIN: CommandDef = {
  meta: { name: "mcpx", version: VERSION, description: "Run TypeScript against MCP servers, through one hook gate." },
  subCommands: Object.fromEntries(Object.entries(COMMAND_DESCRIPTIONS).map(([name, description]) => [name, { meta: { name, description } }])),
};

/**
 * Help, mcpx's own or a command's: on stdout when asked for (--help, exit 0), on stderr when mcpx was
 * run with no command (exit 2, a usage error: a script that forgot its command fails, and its stdout
 * stays clean). citty decides on colour when it loads, so escape codes are removed for a pipe or a file.
 */
async function printUsage(cmd?: Command, to: "stdout" | "stderr" = "stdout"): Promise<void> {
  const text = cmd
    ? await (await import("./help.ts")).commandHelp(cmd, MAIN, COMMAND_EXAMPLES[cmd.meta.name])
    : await (await import("citty")).renderUsage(MAIN);
  const tty = to === "stdout" ? process.stdout.isTTY : process.stderr.isTTY;
  (to === "stdout" ? out : err)((tty ? text : text.replace(/\x1b\[[0-9;]*m/g, "")) + "\n");
}

/**
 * `mcpx --config FILE COMMAND …` is `mcpx COMMAND --config FILE …`: the one flag every command takes
 * may come first. Any other flag before the command is an error that says where it goes.
 */
function leadingConfig(argv: string[]): string[] {
  const lead: string[] = [];
  let i = 0;
  while (i < argv.length && (argv[i] === "--config" || argv[i]!.startsWith("--config="))) {
    const n = argv[i] === "--config" ? 2 : 1;
    if (argv[i] === "--config" && i + 1 >= argv.length) break; // no value: the command's parser says so
    lead.push(...argv.slice(i, i + n));
    i += n;
  }
  return lead.length && i < argv.length ? [argv[i]!, ...lead, ...argv.slice(i + 1)] : argv;
}

/**
 * Starts what the command will most likely start, before it loads: a script's runtime, which loads
 * while the command does (cmd/early-runtime.ts), or the server a one-shot call will start, if the last
 * such call left a note (lib/mcp/early-server.ts). Returns what ends it unless the command took it.
 */
async function earlyStarts(name: "run" | "exec" | "call", argv: string[]): Promise<() => Promise<void>> {
  const [{ preParseArgs }, flags, { remoteByFlag }] = await Promise.all([
    import("../lib/settings/flags.ts"),
    import("./own-flags.ts"),
    import("./wants-daemon.ts"),
  ]);
  const parsed = preParseArgs(name, argv, name === "call" ? flags.CALL_FLAGS : { ...flags.SCRIPT_FLAGS, ...flags.AD_HOC_FLAGS });
  if (name === "call") {
    const server = await import("../lib/mcp/early-server.ts");
    server.startEarlyServer(parsed, { cwd: process.cwd(), env: process.env });
    return server.endEarlyServer;
  }
  // none for a run that does not parse (the command says why) or for --remote, whose run is the
  // daemon's: its code is not even loaded then (a remote run by setting learns that after config)
  if (!parsed || remoteByFlag(parsed.own)) return async () => {};
  const runtime = await import("./early-runtime.ts");
  runtime.startEarlyRuntime(name, parsed);
  return runtime.endEarlyRuntime;
}

async function mainEntry(rawArgv: string[]): Promise<number> {
  const argv = leadingConfig(rawArgv);
  const head = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    out(VERSION + "\n");
    return 0;
  }
  // `mcpx help CMD` is `mcpx CMD --help`
  if (argv[0] === "help" && argv.length > 1) return mainEntry([argv[1]!, "--help"]);
  const name = argv[0];
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    await printUsage(undefined, name === undefined ? "stderr" : "stdout");
    return name === undefined ? exitCodeOf("USAGE") : 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : undefined;
  if (!load) {
    if (name === "--config" || name.startsWith("--config="))
      err(`mcpx: --config needs a file and then a command: mcpx --config FILE COMMAND … (commands are ${Object.keys(COMMANDS).join(", ")})\n`);
    else if (name.startsWith("-"))
      err(
        `mcpx: ${name} before the command: flags go after it (mcpx COMMAND ${name} …), except ` +
          `--config FILE, which may come first; commands are ${Object.keys(COMMANDS).join(", ")}\n`,
      );
    else err(`mcpx: unknown command "${name}"${suggest(name, Object.keys(COMMANDS))}: use one of ${Object.keys(COMMANDS).join(", ")} (mcpx --help)\n`);
    return exitCodeOf("USAGE");
  }
  trace(`main: ${name}`);
  const help = head.includes("--help") || head.includes("-h");
  // what run, exec and call will start is started first, from their command line parsed as the command will parse it
  const early = (name === "run" || name === "exec" || name === "call") && !help ? await earlyStarts(name, argv.slice(1)) : undefined;
  const cmd = await load();
  trace("command loaded");
  if (help) {
    await printUsage(cmd);
    return 0;
  }
  try {
    await cmd.run({ rawArgs: argv.slice(1), load: (n) => COMMANDS[n]() });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    const error = e as Error;
    if (error instanceof McpxError) {
      err(`mcpx ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    return unexpected(name, error);
  } finally {
    await early?.();
  }
}

/**
 * An error mcpx did not expect: a directory of mcpx's that cannot be written is the machine's setup,
 * said in one line with its fix (exit 2); anything else is a bug, with its stack (exit 1).
 */
function unexpected(name: string | undefined, error: Error): number {
  const line = dirErrorLine(error, process.env);
  err(`mcpx${name ? ` ${name}` : ""}: ${line ?? error.stack ?? error.message}\n`);
  return line ? exitCodeOf("SYSTEM") : 1;
}

// also what is thrown before a command runs (the runtime started early writes its files first)
const code = await mainEntry(process.argv.slice(2)).catch((e: Error) => unexpected(process.argv[2], e));
await runBeforeExit();
trace("exit");
process.exit(code);
