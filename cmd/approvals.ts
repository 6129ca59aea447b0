// mcpx approvals, and mcpx approve ID | reject ID [--reason TEXT] (cmd/approve.ts, cmd/reject.ts):
// the user's side of a run an `ask` hook paused (lib/approvals). Only these commands (and the
// daemon's /v1 routes they reach with --remote) decide an approval; an agent can only resume one. With --remote (or the remote setting) the
// daemon's store is listed or decided (lib/daemon/approvals-route.ts) and the answer is printed here
// by the same code, so stdout, stderr and the exit code are the local ones.

import { approvalIdProblem, approvalRow, approvalRows, decidePending, type ApprovalRow } from "../lib/approvals/store.ts";
import { NO_APPROVAL, type ApprovalsReply, type DecidedReply } from "../lib/daemon/approvals-route.ts";
import { DaemonClientError } from "../lib/daemon/client.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { sessionFromArgs, type Session } from "../lib/session/session.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { out } from "../lib/util/fd-write.ts";
import { COMMAND_DESCRIPTIONS, defineCommand, type Command } from "./commands.ts";
import { daemonRequest } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";
import { cittyArgs } from "./help.ts";

const REMOTE: Record<string, OwnFlag> = {
  remote: { type: "boolean", description: "Ask the daemon at daemon.address (mcpx daemon): its state directory's approvals, printed here as locally" },
};
const LIST: Record<string, OwnFlag> = { json: { type: "boolean", description: "Print JSON" }, ...REMOTE };
const REASON: Record<string, OwnFlag> = { reason: { type: "string", description: "Why: the resumed run's refused call says it" } };
const ID = { name: "id", description: "the approval's id, as mcpx approvals lists it" };

/** the daemon's error codes for an approval it cannot decide: the local command's usage error (exit 2) */
const NO_APPROVAL_CODES: ReadonlySet<string> = new Set(Object.values(NO_APPROVAL).map((n) => n.answer));

export default defineCommand({
  meta: { name: "approvals", description: COMMAND_DESCRIPTIONS.approvals },
  args: cittyArgs("approvals", LIST),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("approvals", rawArgs, LIST);
    const extra = [...parsed.positionals, ...parsed.rest];
    if (extra.length) throw new UsageError(`takes no arguments (got ${extra.join(" ")}): mcpx approvals [--json] [--remote]`);
    const session = sessionFromArgs(parsed);
    const rows = wantsDaemon(parsed.own, session)
      ? (await daemonRequest<ApprovalsReply>(session, "GET", "/v1/approvals")).approvals
      : approvalRows(session.env);
    if (parsed.own.json) out(JSON.stringify(rows, null, 2) + "\n");
    else if (rows.length === 0) out("no run waits for an approval\n");
    else
      for (const r of rows) {
        const state = r.expired ? "expired" : r.decision ? (r.decision.approved ? "approved" : "rejected") : "pending";
        out(`${r.id}\t${r.server}.${r.tool}\t${state}\texpires ${r.expiresAt}\t${r.question}\n`);
      }
  },
});

/** mcpx approve or mcpx reject (cmd/approve.ts, cmd/reject.ts): one decision, here or on the daemon */
export function decisionCommand(name: "approve" | "reject"): Command {
  const own = name === "reject" ? { ...REASON, ...REMOTE } : REMOTE;
  return defineCommand({
    meta: { name, description: COMMAND_DESCRIPTIONS[name] },
    args: cittyArgs(name, own, ID),
    async run({ rawArgs }) {
      const parsed = parseCommandArgs(name, rawArgs, own);
      const ids = [...parsed.positionals, ...parsed.rest];
      if (ids.length !== 1) throw new UsageError(`takes one approval id (got ${ids.length}): mcpx ${name} ID (mcpx approvals lists them)`);
      const id = ids[0]!;
      const reason = parsed.own.reason as string | undefined;
      const session = sessionFromArgs(parsed);
      const row = wantsDaemon(parsed.own, session) ? await decideOnDaemon(session, name, id, reason) : decideHere(session, name, id, reason);
      out(
        `${name === "approve" ? "approved" : "rejected"} ${row.id}: ${row.server}.${row.tool}; the agent resumes it with mcpx_exec {"resume": "${row.id}"}\n`,
      );
    },
  });
}

function decideHere(session: Session, name: "approve" | "reject", id: string, reason: string | undefined): ApprovalRow {
  const r = decidePending(session.env, id, name === "approve", reason);
  if (!r.ok) throw new UsageError(r.message);
  return approvalRow(r.record);
}

/** the decision on the daemon's store; an id it cannot decide is the local command's usage error, with the same message */
async function decideOnDaemon(session: Session, name: "approve" | "reject", id: string, reason: string | undefined): Promise<ApprovalRow> {
  // checked here too: an id such as ".." would change the route's path before the daemon could refuse it
  const problem = approvalIdProblem(id);
  if (problem !== undefined) throw new UsageError(problem);
  try {
    const body = reason === undefined ? undefined : { reason };
    return (await daemonRequest<DecidedReply>(session, "POST", `/v1/approvals/${id}/${name}`, body)).approval;
  } catch (e) {
    if (e instanceof DaemonClientError && e.answer && NO_APPROVAL_CODES.has(e.answer.code)) throw new UsageError(e.answer.message);
    throw e;
  }
}
