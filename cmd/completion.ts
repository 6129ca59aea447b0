// mcpx completion bash|zsh|fish: a completion script for the shell, generated from the command table
// (cmd/commands.ts; each command's own flags from its definition, loaded through the table main
// gives) and the settings registry (each command's setting flags with their aliases, an enum's or a
// bool's values, every setting path for mcpx settings get). The scripts: cmd/completion-scripts.ts.

import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { SETTINGS } from "../lib/settings/registry.ts";
import { flagName, flagSpellings, settingsFor } from "../lib/settings/setting-names.ts";
import { out } from "../lib/util/fd-write.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand, type Command, type CommandName } from "./commands.ts";
import { ACTION_FLAGS } from "./config-servers.ts";
import { DAEMON_ACTIONS } from "../lib/daemon/lifecycle.ts";
import { bashScript, fishScript, zshScript, type CompletionCommand, type CompletionFlag, type CompletionModel } from "./completion-scripts.ts";

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** the words a command's first positional may be, where it has a fixed set (each command's usage says the same) */
const ACTIONS: Partial<Record<CommandName, readonly string[]>> = {
  config: Object.keys(ACTION_FLAGS),
  settings: ["list", "get"],
  hooks: ["list", "explain", "test"],
  completion: Object.keys(SHELLS),
  daemon: DAEMON_ACTIONS,
};

/** what a later positional is: a script file (run), a config file (trust), a setting path (settings get) */
const OPERANDS: Partial<Record<CommandName, CompletionCommand["operand"]>> = { run: "files", trust: "files", settings: "settings" };

const OWN: Record<string, OwnFlag> = {};

export default defineCommand({
  meta: { name: "completion", description: COMMAND_DESCRIPTIONS.completion },
  args: cittyArgs("completion", OWN, { name: "shell", description: Object.keys(SHELLS).join(", ") }),
  async run({ rawArgs, load }) {
    const parsed = parseCommandArgs("completion", rawArgs, OWN);
    const [shell, ...extra] = parsed.positionals;
    if (shell === undefined || extra.length || parsed.rest.length || !Object.hasOwn(SHELLS, shell))
      throw new UsageError(`usage: mcpx completion ${Object.keys(SHELLS).join("|")}${shell && !Object.hasOwn(SHELLS, shell) ? ` (not "${shell}")` : ""}`);
    if (!load) throw new Error("internal: mcpx completion needs the command table");
    out(SHELLS[shell as keyof typeof SHELLS](await model(load)));
  },
});

async function model(load: (name: CommandName) => Promise<Command>): Promise<CompletionModel> {
  const commands: CompletionCommand[] = [];
  for (const name of Object.keys(COMMAND_DESCRIPTIONS) as CommandName[]) {
    const cmd = await load(name);
    const settings = settingsFor(name);
    const settingFlags = new Set(settings.map((s) => flagName(s.path)));
    const flags: CompletionFlag[] = [];
    for (const [flag, a] of Object.entries(cmd.args)) {
      if (a.type === "positional" || settingFlags.has(flag)) continue;
      flags.push({ name: flag, takesValue: a.type === "string", description: a.description ?? "" });
    }
    for (const s of settings) {
      const values = s.values ?? (s.kind === "bool" ? ["true", "false"] : undefined);
      for (const spelling of flagSpellings(s)) flags.push({ name: spelling, takesValue: true, ...(values ? { values } : {}), description: s.description });
    }
    commands.push({ name, description: cmd.meta.description, flags, actions: ACTIONS[name] ?? [], operand: OPERANDS[name] ?? "none" });
  }
  return { commands, settingPaths: SETTINGS.map((s) => s.path) };
}
