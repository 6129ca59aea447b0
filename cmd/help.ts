// citty argument definitions derived from the settings registry, used for --help only; values are
// parsed strictly by lib/settings/flags.ts.

import type { ArgsDef, CommandDef } from "citty";
import type { OwnFlag } from "../lib/settings/flags.ts";
import { COMMON_FLAGS } from "../lib/settings/flags.ts";
import type { CommandName } from "../lib/settings/setting-decl.ts";
import { envName, flagName, settingsFor } from "../lib/settings/setting-names.ts";
import { formatDuration } from "../lib/settings/duration.ts";

export function cittyArgs(command: CommandName, own: Record<string, OwnFlag>, ...positionals: Array<{ name: string; description: string }>): ArgsDef {
  const args: ArgsDef = {};
  for (const p of positionals) args[p.name] = { type: "positional", description: p.description, required: false };
  for (const [name, f] of Object.entries({ ...own, ...COMMON_FLAGS })) {
    if (name === "help") continue;
    args[name] = { type: f.type, description: f.description, valueHint: f.valueHint, alias: f.short ? [f.short] : undefined };
  }
  for (const s of settingsFor(command)) {
    // no "(default …)" for an empty default, a list, or a duration of 0 (which means "no limit", said in the text)
    const def = Array.isArray(s.default) || s.default === "" || (s.kind === "duration" && formatDuration(0) === s.default) ? "" : ` (default ${s.default})`;
    const values = s.values ? ` [${s.values.join("|")}]` : "";
    // citty prints long aliases with a single dash, a spelling that does not parse: name them here
    const also = s.aliases?.length ? ` (also ${s.aliases.map((a) => `--${a}`).join(", ")})` : "";
    args[flagName(s.path)] = {
      type: "string",
      description: `${s.description}${values}${def}; ${envName(s.path)}${also}`,
      valueHint: s.kind === "source" ? "TS" : s.kind === "json" ? "JSON" : s.kind === "duration" ? "DURATION" : "VALUE",
    };
  }
  return args;
}

/**
 * A command's --help as printed: citty's usage with the command's own flags, then its settings under
 * SETTINGS (there are up to 27, and they are not what a new user looks for first), then EXAMPLES.
 */
export async function commandHelp(
  cmd: { meta: { name: CommandName; description: string }; args: ArgsDef },
  main: CommandDef,
  examples: readonly string[],
): Promise<string> {
  const { renderUsage } = await import("citty");
  const settingFlags = new Set(settingsFor(cmd.meta.name).map((s) => flagName(s.path)));
  const own = Object.fromEntries(Object.entries(cmd.args).filter(([name]) => !settingFlags.has(name)));
  const usage = await renderUsage({ ...cmd, args: own } as unknown as CommandDef, main);
  const rows = Object.entries(cmd.args)
    .filter(([name]) => settingFlags.has(name))
    .map(([name, a]) => [`--${name}${"valueHint" in a && a.valueHint ? `=<${a.valueHint}>` : ""}`, a.description ?? ""] as const);
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  const settings = rows.length
    ? `\nSETTINGS (each also a config key and an MCPX_* variable: docs/settings.md)\n\n${rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`).join("\n")}\n`
    : "";
  const ex = examples.length ? `\nEXAMPLES\n\n${examples.map((e) => `  ${e}`).join("\n")}\n` : "";
  return `${usage}\n${settings}${ex}`;
}
