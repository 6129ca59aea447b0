// mcpx approvals | approve ID | reject ID [--reason TEXT]: the user's side of a run an `ask` hook
// paused (lib/approvals). Only these commands decide an approval; an agent can only resume one.

import { out } from "../lib/util/fd-write.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { approvalRows, decidePending } from "../lib/approvals/store.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand, type Command } from "./commands.ts";

const LIST: Record<string, OwnFlag> = { json: { type: "boolean", description: "Print JSON" } };
const REASON: Record<string, OwnFlag> = { reason: { type: "string", description: "Why: the resumed run's refused call says it" } };
const ID = { name: "id", description: "the approval's id, as mcpx approvals lists it" };

export const approvals: Command = defineCommand({
  meta: { name: "approvals", description: COMMAND_DESCRIPTIONS.approvals },
  args: cittyArgs("approvals", LIST),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("approvals", rawArgs, LIST);
    const extra = [...parsed.positionals, ...parsed.rest];
    if (extra.length) throw new UsageError(`takes no arguments (got ${extra.join(" ")}): mcpx approvals [--json]`);
    const rows = approvalRows(process.env);
    if (parsed.own.json) out(JSON.stringify(rows, null, 2) + "\n");
    else if (rows.length === 0) out("no run waits for an approval\n");
    else
      for (const r of rows) {
        const state = r.expired ? "expired" : r.decision ? (r.decision.approved ? "approved" : "rejected") : "pending";
        out(`${r.id}\t${r.server}.${r.tool}\t${state}\texpires ${r.expiresAt}\t${r.question}\n`);
      }
  },
});

function decide(name: "approve" | "reject"): Command {
  const own = name === "reject" ? REASON : {};
  return defineCommand({
    meta: { name, description: COMMAND_DESCRIPTIONS[name] },
    args: cittyArgs(name, own, ID),
    async run({ rawArgs }) {
      const parsed = parseCommandArgs(name, rawArgs, own);
      const ids = [...parsed.positionals, ...parsed.rest];
      if (ids.length !== 1) throw new UsageError(`takes one approval id (got ${ids.length}): mcpx ${name} ID (mcpx approvals lists them)`);
      const reason = parsed.own.reason as string | undefined;
      const r = decidePending(process.env, ids[0]!, name === "approve", reason);
      if (!r.ok) throw new UsageError(r.message);
      out(
        `${name === "approve" ? "approved" : "rejected"} ${r.record.id}: ${r.record.server}.${r.record.tool}; ` +
          `the agent resumes it with mcpx_exec {"resume": "${r.record.id}"}\n`,
      );
    },
  });
}

export const approve = decide("approve");
export const reject = decide("reject");
