// Strict command-line parsing, derived from the registry: every setting a command takes becomes its
// long flag plus aliases, and an unknown flag is an error naming the accepted ones. (citty's own
// parser accepts unknown flags and keeps only the last of repeated ones, so it is used for routing
// and help only.) The parser is mcpx's own, not node:util's parseArgs: loading node:util would add to
// the start-up of every run, exec and call (decision 0011), and the rules needed here are few (long
// flags with = or a following value, -h, switches, repeatable flags, everything after -- left alone).

import { UsageError } from "../errors/usage-error.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { FlagValue } from "./resolve.ts";
import type { CommandName } from "./setting-decl.ts";
import { flagSpellings, settingsFor } from "./setting-names.ts";

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
      // a bool setting's flag is a switch (--exec-auto-install, or =false): it never takes the next word as its value
      options[spelling] = { type: decl.kind === "bool" ? "boolean" : "string", multiple: true };
    }
  }
  const own = { ...COMMON_FLAGS, ...ownFlags };
  for (const [name, f] of Object.entries(own))
    options[name] = { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) };

  const settings: FlagValue[] = [];
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  const shortToName = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  for (let i = 0; i < head.length; i++) {
    const arg = head[i]!;
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const eq = long ? arg.indexOf("=") : -1;
    const spelled = long ? arg.slice(2, eq >= 0 ? eq : undefined) : arg.slice(1);
    const name = long ? spelled : shortToName.get(spelled);
    const option = name !== undefined ? options[name] : undefined;
    if (name === undefined || option === undefined) throw new UsageError(unknownFlag(arg.slice(0, eq >= 0 ? eq : undefined), command, Object.keys(options)));
    let value: string | boolean = true;
    const path = spellingToPath.get(name);
    if (option.type === "boolean") {
      if (eq >= 0 && path) value = arg.slice(eq + 1);
      else if (eq >= 0) throw new UsageError(`--${name} takes no value (it is a switch: give --${name} alone)`);
      else if (path) value = "true";
    } else if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = head[i + 1];
      // a flag where its value should be is a forgotten value, as node's parseArgs judged it; a value that starts with - goes after =
      if (next === undefined || (next.startsWith("-") && next !== "-"))
        throw new UsageError(`--${name} needs a value${next ? ` (to give one starting with -, write --${name}=${next})` : ""}`);
      value = next;
      i++;
    }
    if (path) settings.push({ path, spelling: `--${name}`, value: value as string });
    if (option.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value as string];
    else values[name] = value; // the last of repeated ones, as node's parseArgs
  }
  const ownValues: ParsedArgs["own"] = {};
  for (const name of Object.keys(own)) ownValues[name] = values[name];
  return { settings, own: ownValues, positionals, rest };
}

/** the error for a flag this command does not take, with the nearest spelling and every accepted one */
function unknownFlag(flag: string, command: string, known: string[]): string {
  const flags = known.map((k) => `--${k}`);
  // only run and exec have a script to pass a flag to
  const toScript = command === "run" || command === "exec" ? ". To pass it to the script, put it after --" : "";
  return `unknown flag ${flag} for mcpx ${command}${suggest(flag.startsWith("--") ? flag : `-${flag}`, flags)}; accepted: ${flags.join(", ")}${toScript}`;
}

/**
 * The same parse, for a command line read before its command loads (cmd/main.ts starts a script's
 * runtime or a call's server early from it): undefined where it does not parse, which the command
 * then reports itself, and for which nothing is started early.
 */
export function preParseArgs(command: CommandName, argv: string[], ownFlags: Record<string, OwnFlag>): ParsedArgs | undefined {
  try {
    return parseCommandArgs(command, argv, ownFlags);
  } catch (err) {
    if (err instanceof UsageError) return undefined;
    throw err;
  }
}

/** the value a scalar setting's flag gave, if one did (given twice, resolution refuses it) */
export function settingFlag(parsed: ParsedArgs, path: string): string | undefined {
  return parsed.settings.find((f) => f.path === path)?.value;
}
