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
  search:
    "Find the tools for a task in words across every server, best first, each as SERVER.TOOL with the line a script calls it by " +
    "(ranked by names, parameters and descriptions; no model); mcpx types SERVER.TOOL prints one's declaration",
  call:
    "Call one tool: mcpx call SERVER.TOOL key=value key:=JSON … (typed and checked by the " +
    "tool's input schema), one JSON object, or - (stdin); a tool error exits 1",
  resource:
    "Read a server's resources: mcpx resource SERVER lists its resources and resource templates; mcpx resource SERVER URI " +
    "prints a text resource, writes a blob to -o FILE (or base64 with --json); the read passes resource.read hooks, a server's error exits 1",
  prompt:
    "Get a server's prompts: mcpx prompt SERVER lists them with their arguments (required ones marked); mcpx prompt SERVER NAME key=value … " +
    "prints its messages; the get passes prompt.get hooks, a missing required argument exits 2",
  settings: "Show settings: mcpx settings list | mcpx settings get PATH",
  config:
    "Config files' servers: mcpx config add NAME -- COMMAND ARGS… | add NAME --url URL | remove NAME (./.mcpx.json, or --user) | " +
    "list (every server in force, its file, whether it can start); mcpx config import [KIND]: what other tools' configs bring, or write them into ./.mcpx.json",
  hooks: "Hooks in force: mcpx hooks list | explain SERVER.TOOL | test NAME --event FILE",
  serve:
    "Serve mcpx as an MCP server on stdio (tools mcpx_exec, mcpx_call, mcpx_namespaces, " +
    "mcpx_types, mcpx_search, mcpx_describe, and _Stop/_PostCompact for agent hosts) and the servers' resources (mcpx://SERVER/ENCODED-URI) " +
    "and prompts (SERVER__NAME); ends when stdin closes",
  auth:
    "Log in to an HTTP server that requires OAuth: mcpx auth NAME (a browser or a printed " +
    "URL, then a loopback redirect); mcpx auth NAME --logout forgets it (docs/auth.md)",
  trust:
    "Trust a project's config files (.mcpx.json, .mcp.json, plugin manifests) as they are now: mcpx trust [PATH] " +
    "(no path: every untrusted one in force here); --list shows what is trusted, --revoke [PATH] takes it back (docs/security.md)",
  doctor:
    "Check what mcpx needs, one line each with its fix: config files and their trust, runtimes (Deno for the sandbox, Node), /proc, " +
    "the cache, state and socket directories, and each server's start (bounded by mcp.startTimeout); exit 1 when something is wrong",
  completion:
    "Print a completion script for bash, zsh or fish, generated from the commands and settings: " +
    "source <(mcpx completion bash), or write it where the shell loads completions",
  approvals:
    "List the runs an `ask` hook paused because nobody could answer it (mcpx_exec over MCP): each approval's id, the call " +
    "waiting, the question, when it expires and whether it is decided (docs/hooks.md)",
  approve: 'Allow a paused run\'s call: mcpx approve ID; the agent then resumes it with mcpx_exec {"resume": ID}, and the call is sent once',
  reject: "Refuse a paused run's call: mcpx reject ID [--reason TEXT]; the resumed run gets the call refused",
  audit:
    "Read the audit log: a line per run (door, caller, exit), per upstream tool call (the arguments' keys and types, never their " +
    "values; duration, outcome) and per hook that ran (its decision); --since, --server, --tool, --decision filter, --json " +
    "prints the records, --remote reads the daemon's (docs/audit.md)",
  daemon:
    "Serve /v1/exec, /v1/settings, /v1/events and /v1/health on a unix socket (default: one per config) or loopback TCP with a token, " +
    "until SIGINT/SIGTERM; start, status, stop, restart: the same daemon in the background (docs/daemon.md)",
} as const;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;

/** what `mcpx COMMAND --help` shows under EXAMPLES, beside the descriptions so the two stay together */
export const COMMAND_EXAMPLES: Record<CommandName, readonly string[]> = {
  run: [
    "mcpx run report.ts world",
    "mcpx run report.ts --before 'log(\"starting\")' --suffix 'log(\"done\")'",
    "mcpx run nightly -- --dry-run            # .mcpx/scripts/nightly.ts, args after --",
  ],
  exec: [
    "mcpx exec 'console.log(await everything.echo({ message: \"hi\" }))'",
    'mcpx exec --stdio "npx -y @modelcontextprotocol/server-everything" \'console.log(await everything.echo({ message: "hi" }))\'',
    "echo 'console.log(1)' | mcpx exec -",
  ],
  ls: ["mcpx ls", "mcpx ls everything", "mcpx ls --http-url http://127.0.0.1:3000/mcp --json"],
  types: ["mcpx types everything", "mcpx types everything.echo"],
  search: ['mcpx search "add two numbers"', "mcpx search write a file --limit 3", 'mcpx search "remember a fact" --json'],
  call: [
    "mcpx call everything.echo message=hi",
    "mcpx call everything.add a=1 b=2",
    'mcpx call fs.write_file path=/tmp/x content:=\'"42"\'   # := is JSON: the string "42"',
    'echo \'{"message": "hi"}\' | mcpx call everything.echo -',
  ],
  resource: [
    "mcpx resource everything",
    "mcpx resource everything demo://resource/static/document/architecture.md",
    "mcpx resource everything demo://resource/dynamic/blob/1 -o blob.bin",
  ],
  prompt: ["mcpx prompt everything", "mcpx prompt everything args-prompt city=Paris state=Texas", "mcpx prompt everything simple-prompt --json"],
  settings: ["mcpx settings list", "mcpx settings get script.before"],
  hooks: ["mcpx hooks list", "mcpx hooks explain everything.echo", "mcpx hooks test my-hook --event payload.json"],
  serve: ["mcpx serve                                 # as an MCP server of an agent host"],
  daemon: [
    "mcpx daemon start                         # in the background; status, stop and restart find it again",
    "mcpx daemon status --json",
    "mcpx daemon                               # in the foreground, until SIGINT/SIGTERM",
    'mcpx daemon --daemon-address http://127.0.0.1:7777 --daemon-token "$TOKEN"',
  ],
  auth: ["mcpx auth notes                           # log in: a browser, or the printed URL", "mcpx auth notes --logout"],
  trust: [
    "mcpx trust                                # every untrusted project file in force here, as it is now",
    "mcpx trust .mcpx.json",
    "mcpx trust --list",
    "mcpx trust --revoke .mcpx.json",
  ],
  doctor: ["mcpx doctor", "mcpx doctor --json"],
  approvals: ["mcpx approvals", "mcpx approvals --json", "mcpx approvals --remote                   # the daemon's (mcpx daemon)"],
  approve: ["mcpx approve 0123456789ab", "mcpx approve 0123456789ab --remote"],
  reject: ["mcpx reject 0123456789ab --reason 'not on a Friday'"],
  audit: ["mcpx audit --since 1h", "mcpx audit --decision refuse", "mcpx audit --server everything --tool echo --json", "mcpx audit --remote"],
  completion: [
    "mcpx completion bash > ~/.local/share/bash-completion/completions/mcpx   # or: source <(mcpx completion bash)",
    'mcpx completion zsh > "${fpath[1]}/_mcpx"',
    "mcpx completion fish > ~/.config/fish/completions/mcpx.fish",
  ],
  config: [
    "mcpx config add memory -- npx -y @modelcontextprotocol/server-memory",
    "mcpx config add notes --url https://notes.example/mcp --header 'Authorization=Bearer ${TOKEN}'",
    "mcpx config remove memory",
    "mcpx config list                          # every server in force, its file, and whether it can start",
    "mcpx config import                        # what each other tool's config would bring",
    "mcpx config import claude-code              # write its servers into ./.mcpx.json",
  ],
};

export interface Command {
  meta: { name: CommandName; description: string };
  /** for --help only */
  args: ArgsDef;
  /** the argv after the command's name */
  run(ctx: {
    rawArgs: string[];
    /** the command table, given by main: mcpx completion reads every command's flags through it (no import cycle) */
    load?: (name: CommandName) => Promise<Command>;
  }): Promise<void>;
}

export const defineCommand = (command: Command): Command => command;
