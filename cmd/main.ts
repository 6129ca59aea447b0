// mcpx: the entry point. Commands load lazily, and the top-level help is rendered from the table of
// command descriptions alone, so `mcpx --help` loads no command and never pays for the MCP SDK.
// Usage and config errors exit 2 before anything runs; see docs/exit-codes.md.

import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty";
import { VERSION } from "../lib/version.ts";
import { err, out } from "../lib/render/write.ts";
import { COMMAND_DESCRIPTIONS, type CommandName } from "./commands.ts";

const COMMANDS: Record<CommandName, () => Promise<CommandDef>> = {
  run: () => import("./run.ts").then((m) => m.default as CommandDef),
  exec: () => import("./exec.ts").then((m) => m.default as CommandDef),
  ls: () => import("./ls.ts").then((m) => m.default as CommandDef),
  types: () => import("./types.ts").then((m) => m.default as CommandDef),
  call: () => import("./call.ts").then((m) => m.default as CommandDef),
  settings: () => import("./settings.ts").then((m) => m.default as CommandDef),
  hooks: () => import("./hooks.ts").then((m) => m.default as CommandDef),
  serve: () => import("./serve.ts").then((m) => m.default as CommandDef),
  daemon: () => import("./daemon.ts").then((m) => m.default as CommandDef),
};

const main = defineCommand({
  meta: { name: "mcpx", version: VERSION, description: "Run TypeScript against MCP servers, through one hook gate." },
  // for the usage text only: each command's name and description, without loading it
  subCommands: Object.fromEntries(Object.entries(COMMAND_DESCRIPTIONS).map(([name, description]) => [name, defineCommand({ meta: { name, description } })])),
});

/** errors that mean "the request was wrong", not "the run failed" */
const USAGE_ERRORS = new Set(["UsageError", "ConfigError", "SettingsError", "RuntimeError", "HookConfigError"]);

/** help on stdout; citty decides on colour when it loads, so escape codes are removed for a pipe or a file */
async function printUsage(cmd: CommandDef, parent?: CommandDef): Promise<void> {
  const text = await renderUsage(cmd, parent);
  out((process.stdout.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, "")) + "\n");
}

async function mainEntry(argv: string[]): Promise<number> {
  const head = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    out(VERSION + "\n");
    return 0;
  }
  const name = argv[0];
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    await printUsage(main);
    return name === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : undefined;
  if (!load) {
    err(`mcpx: unknown command "${name}": use one of ${Object.keys(COMMANDS).join(", ")} (mcpx --help)\n`);
    return 2;
  }
  const cmd = await load();
  if (head.includes("--help") || head.includes("-h")) {
    await printUsage(cmd, main);
    return 0;
  }
  try {
    await runCommand(cmd, { rawArgs: argv.slice(1) });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (e) {
    const error = e as Error;
    if (USAGE_ERRORS.has(error.name) || (error as { code?: string }).code?.startsWith("E_")) {
      err(`mcpx ${name}: ${error.message}\n`);
      return 2;
    }
    err(`mcpx ${name}: ${error.stack ?? error.message}\n`);
    return 1;
  }
}

process.exit(await mainEntry(process.argv.slice(2)));
