// mcpx prompt SERVER [NAME key=value…]: a server's prompts with their arguments, or one prompt's
// messages, got through the prompt.get point of the gate (lib/exec/one-feature.ts). Its arguments
// are checked against the prompt's declared ones first: a missing required one or an unknown key is
// a usage error (exit 2) naming it, and the server never sees the request. With --remote the daemon
// lists or gets (POST /v1/prompt) and the answer is rendered here by the same code.

import { McpxError } from "../lib/errors/mcpx-error.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import type { PromptReply } from "../lib/daemon/feature-route.ts";
import { onePrompt, type PromptAnswer } from "../lib/exec/one-feature.ts";
import { promptRows, promptText } from "../lib/render/feature-content.ts";
import { tsvRow } from "../lib/render/tsv-row.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { out } from "../lib/util/fd-write.ts";
import { sessionWithAdHoc } from "./ad-hoc.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { namedServer, onDaemon, withEngine } from "./feature-engine.ts";
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
    const { server, remote } = namedServer(parsed, session, first, USAGE);
    const args = promptArgs(items);
    const json = parsed.own.json === true;
    if (remote) return show(await onDaemon<PromptReply>(session, "prompt", { server, ...(name === undefined ? {} : { name, args }) }), json);
    // shown before the server is ended: the answer is not held back by the server's exit
    await withEngine(session, "prompt", async (engine, push) => show(await onePrompt(engine, server, name, args, push), json));
  },
});

/** the list as rows (--json: as the server listed it), or a get's messages; a failed get exits 1 */
function show(answer: PromptAnswer, json: boolean): void {
  if ("list" in answer) {
    if (json) {
      out(JSON.stringify(answer.list, null, 2) + "\n");
      return;
    }
    for (const row of promptRows(answer.list.prompts)) out(tsvRow(...row));
    return;
  }
  const got = answer.get;
  if (!got.ok) throw new McpxError(got.error.message, "TOOL_ERROR");
  if (json) {
    out(JSON.stringify(got.value, null, 2) + "\n");
    return;
  }
  const text = promptText(got.value);
  out(text.endsWith("\n") ? text : text + "\n");
}

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
