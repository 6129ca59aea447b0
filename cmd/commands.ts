// The commands and what each does, in the order `mcpx --help` lists them: one table that the
// top-level help reads without loading any command (each one's code, and the SDK behind most of them,
// loads only when that command runs) and that each command's own --help reads too.
//
// A command has citty's shape, because citty renders the help, but citty is not loaded to run one:
// flags are parsed strictly by lib/settings/flags.ts from the raw argv, and citty's own parsing (and
// its node:util) would only cost start-up time.

import type { ArgsDef } from "citty";

export const COMMAND_DESCRIPTIONS = {
  run: "Run a TypeScript file (or a named script from .mcpx/scripts/) against your MCP servers. Arguments after the file (or after --) go to the script.",
  exec: "Run a TypeScript snippet against your MCP servers; it is written to a file and imported like a script, so every phase applies.",
  ls: "List configured servers with their tool counts, or one server's tools",
  types: "Print the TypeScript declarations for a server (SERVER) or one tool (SERVER.TOOL)",
  call: "Call one tool: mcpx call SERVER.TOOL '{\"arg\": 1}' (or - to read the arguments from stdin). Prints the unwrapped result; a tool error exits 1.",
  settings: "Show settings: mcpx settings list | mcpx settings get PATH",
  config: "Servers other tools keep (config.imports): mcpx config import lists what each kind brings; mcpx config import KIND writes them into ./.mcpx.json",
  hooks: "Hooks in force: mcpx hooks list | explain SERVER.TOOL | test NAME --event FILE",
  serve: "Serve mcpx as an MCP server on stdio (tools mcpx_exec, mcpx_call, mcpx_namespaces, mcpx_types, and _Stop/_PostCompact for agent hosts); ends when stdin closes",
  daemon: "Serve /v1/exec, /v1/settings, /v1/events and /v1/health on a unix socket (default) or loopback TCP with a token, until SIGINT/SIGTERM (docs/daemon.md)",
} as const;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;

export interface Command {
  meta: { name: CommandName; description: string };
  /** for --help only */
  args: ArgsDef;
  /** the argv after the command's name */
  run(ctx: { rawArgs: string[] }): Promise<void>;
}

export const defineCommand = (command: Command): Command => command;
