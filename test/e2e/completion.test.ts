// mcpx completion bash|zsh|fish: scripts generated from the command table and the settings
// registry. The bash one is loaded into a real bash and asked to complete a command, a flag, a flag's
// accepted values, an action and a setting path; zsh and fish (not installed here) are checked to
// name every command and every setting flag, so a command or setting added to a table completes.

import { describe, expect, test } from "bun:test";
import { COMMAND_DESCRIPTIONS } from "../../cmd/commands.ts";
import { flagSpellings, settingsFor } from "../../lib/settings/setting-names.ts";
import { MCPX, sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

/** what bash's completion of `line` (the last word being completed) offers, after sourcing mcpx's script */
async function bashCompletes(sb: ReturnType<typeof sandbox>, ...lines: string[][]): Promise<string[]> {
  const asks = lines.map((words) => `t ${words.map((w) => `'${w}'`).join(" ")}`).join("\n");
  const script = [
    `source <('${MCPX}' completion bash) || exit 3`,
    "complete -p mcpx",
    't() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _mcpx; echo "[${COMPREPLY[*]}]"; }',
    asks,
  ].join("\n");
  const p = Bun.spawn(["bash", "-c", script], { cwd: sb.dir, env: sb.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return stdout.trimEnd().split("\n");
}

describe("mcpx completion", () => {
  test("bash: the script loads, registers mcpx, and completes a command, a flag, its values, an action and a setting path", async () => {
    const sb = sandbox();
    const got = await bashCompletes(
      sb,
      ["mcpx", "doc"],
      ["mcpx", "exec", "--sand"],
      ["mcpx", "exec", "--sandbox", ""],
      ["mcpx", "config", ""],
      ["mcpx", "config", "add", "x", "--hea"],
      ["mcpx", "settings", "get", "script.be"],
      ["mcpx", "--config", "f.json", "complet"],
    );
    expect(got).toEqual([
      "complete -o default -F _mcpx mcpx",
      "[doctor]",
      "[--sandbox --sandbox-engine]",
      "[auto on off]",
      "[import add remove list]",
      "[--header]",
      "[script.before]",
      "[completion]",
    ]);
  });

  test("every shell's script names every command and every setting flag exec takes, aliases included", async () => {
    const sb = sandbox();
    const flags = settingsFor("exec").flatMap(flagSpellings);
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await mcpx(sb, ["completion", shell]);
      expectExit(r, 0);
      const missing = [
        ...Object.keys(COMMAND_DESCRIPTIONS).filter((c) => !new RegExp(`(^|[\\s'"])${c}([\\s:)'"]|$)`, "m").test(r.stdout)),
        ...flags.filter((f) => !(shell === "fish" ? r.stdout.includes(`-l ${f} `) : r.stdout.includes(`--${f}`))),
      ];
      expect({ shell, missing }).toEqual({ shell, missing: [] });
    }
  });

  test("a shell mcpx has no script for exits 2 naming the ones it has", async () => {
    const r = await mcpx(sandbox(), ["completion", "tcsh"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('usage: mcpx completion bash|zsh|fish (not "tcsh")');
  });
});
