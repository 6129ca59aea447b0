// Strict command-line parsing, derived from the registry: every setting a command takes becomes its
// long flag plus aliases, and an unknown flag is an error naming the accepted ones. (citty's own
// parser accepts unknown flags and keeps only the last of repeated ones, so it is used for routing
// and help only.)

import { parseArgs } from "node:util";
import { McpxError } from "../errors/mcpx-error.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { FlagValue } from "./resolve.ts";
import { flagSpellings, settingsFor, type CommandName } from "./registry.ts";

/** a wrong command line: exit 2 (lib/errors/codes.ts USAGE) */
export class UsageError extends McpxError {
  override name = "UsageError";
  constructor(message: string) {
    super(message, "USAGE");
  }
}

export interface OwnFlag {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  description: string;
  /** shown in help as the value's name */
  valueHint?: string;
}

export interface ParsedArgs {
  settings: FlagValue[];
  own: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** what came after a literal `--` */
  rest: string[];
}

/** flags every command takes */
export const COMMON_FLAGS: Record<string, OwnFlag> = {
  config: { type: "string", description: "Use exactly this config file (also MCPX_CONFIG)", valueHint: "FILE" },
  help: { type: "boolean", short: "h", description: "Show help" },
};

/** parses one command's argv; what follows a literal `--` is passed through untouched (script args) */
export function parseCommandArgs(command: CommandName, argv: string[], ownFlags: Record<string, OwnFlag>): ParsedArgs {
  const dashdash = argv.indexOf("--");
  const head = dashdash >= 0 ? argv.slice(0, dashdash) : argv;
  const rest = dashdash >= 0 ? argv.slice(dashdash + 1) : [];

  const spellingToPath = new Map<string, string>();
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {};
  for (const decl of settingsFor(command)) {
    for (const spelling of flagSpellings(decl)) {
      spellingToPath.set(spelling, decl.path);
      options[spelling] = { type: "string", multiple: true };
    }
  }
  const own = { ...COMMON_FLAGS, ...ownFlags };
  for (const [name, f] of Object.entries(own))
    options[name] = { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) };

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: head, options, strict: true, allowPositionals: true, tokens: true });
  } catch (err) {
    throw new UsageError(explain(err as Error, command, Object.keys(options)));
  }

  const settings: FlagValue[] = [];
  const ownValues: ParsedArgs["own"] = {};
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    const path = spellingToPath.get(token.name);
    if (path) {
      if (token.value === undefined) throw new UsageError(`--${token.name} needs a value`);
      settings.push({ path, spelling: `--${token.name}`, value: token.value });
    }
  }
  for (const name of Object.keys(own)) ownValues[name] = parsed.values[name] as ParsedArgs["own"][string];
  return { settings, own: ownValues, positionals: parsed.positionals, rest };
}

function explain(err: Error, command: string, known: string[]): string {
  const m = /Unknown option '(-{1,2})([^']+)'/.exec(err.message);
  if (m) {
    const flags = known.map((k) => `--${k}`);
    // only run and exec have a script to pass a flag to
    const toScript = command === "run" || command === "exec" ? ". To pass it to the script, put it after --" : "";
    return `unknown flag ${m[1]}${m[2]} for mcpx ${command}${suggest(`--${m[2]}`, flags)}; accepted: ${flags.join(", ")}${toScript}`;
  }
  const missing = /Option '(-\w, )?--([^ ]+) <value>' argument missing/.exec(err.message);
  if (missing) return `--${missing[2]} needs a value`;
  return err.message;
}
