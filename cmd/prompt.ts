// mcpx prompt SERVER [NAME key=value…]: a server's prompts with their arguments, or one prompt's
// messages, got through the prompt.get point of the gate (lib/exec/gated-feature.ts). Its arguments
// are checked against the prompt's declared ones first: a missing required one or an unknown key is
// a usage error (exit 2) naming it, and the server never sees the request.

import { McpxError } from "../lib/errors/mcpx-error.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { featureThroughGate } from "../lib/exec/gated-feature.ts";
import type { Prompt } from "../lib/mcp/server-features.ts";
import { promptRows, promptText } from "../lib/render/feature-content.ts";
import { tsvRow } from "../lib/render/tsv-row.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { out } from "../lib/util/fd-write.ts";
import { sessionWithAdHoc } from "./ad-hoc.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { namedServer, withEngine } from "./feature-engine.ts";
import { cittyArgs } from "./help.ts";
import { PROMPT_FLAGS } from "./own-flags.ts";

const USAGE = "mcpx prompt SERVER [NAME [key=value …]] [--json]";

export default defineCommand({
  meta: { name: "prompt", description: COMMAND_DESCRIPTIONS.prompt },
  args: cittyArgs(
    "prompt",
    PROMPT_FLAGS,
    { name: "server", description: "a server name" },
    { name: "name", description: "the prompt's name; none lists the prompts" },
    { name: "args", description: "key=value, one per argument (prompt arguments are strings)" },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("prompt", rawArgs, PROMPT_FLAGS);
    const [first, name, ...items] = parsed.positionals;
    const session = sessionWithAdHoc(parsed);
    const server = namedServer(session, first, USAGE);
    const args = promptArgs(items);
    const json = parsed.own.json === true;
    await withEngine(session, "prompt", async (engine, push) => {
      const prompts = (await engine.pool.list(server, "prompts/list")) as Prompt[];
      if (name === undefined) {
        if (json) return out(JSON.stringify({ prompts }, null, 2) + "\n");
        for (const row of promptRows(prompts)) out(tsvRow(...row));
        return;
      }
      // a prompt the server does not list is the server's to refuse (its error, exit 1)
      const declared = prompts.find((p) => p.name === name);
      if (declared) checkArgs(server, declared, args);
      const answer = await featureThroughGate(engine, engine.gate, { op: "prompt.get", server, target: name, args }, { push });
      if (!answer.ok) throw new McpxError(answer.error.message, "TOOL_ERROR");
      if (json) return out(JSON.stringify(answer.value, null, 2) + "\n");
      const text = promptText(answer.value);
      out(text.endsWith("\n") ? text : text + "\n");
    });
  },
});

/** key=value items as the prompt's arguments: every value a string, each key once */
function promptArgs(items: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new UsageError(`"${item}" is not key=value: a prompt's arguments are given as key=value, one each (usage: ${USAGE})`);
    const key = item.slice(0, eq);
    if (Object.hasOwn(args, key)) throw new UsageError(`argument "${key}" is given twice: give each once`);
    args[key] = item.slice(eq + 1);
  }
  return args;
}

function checkArgs(server: string, prompt: Prompt, args: Record<string, string>): void {
  const declared = (prompt.arguments ?? []).map((a) => a.name);
  const what = `prompt ${server}.${prompt.name}`;
  for (const key of Object.keys(args))
    if (!declared.includes(key))
      throw new UsageError(`${what} has no argument "${key}"${suggest(key, declared)}: it takes ${declared.join(", ") || "none"} (see mcpx prompt ${server})`);
  const missing = (prompt.arguments ?? []).filter((a) => a.required && !Object.hasOwn(args, a.name)).map((a) => a.name);
  if (missing.length)
    throw new UsageError(
      `${what} needs ${missing.map((m) => `${m}=…`).join(" ")}: missing required argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
    );
}
