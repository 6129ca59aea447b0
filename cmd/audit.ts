// mcpx audit [--since …] [--server …] [--tool …] [--decision …] [--json] [--remote]: reads the audit
// log (lib/audit, docs/audit.md), this user's or, with --remote, the daemon's (GET /v1/audit). The
// filters are checked here before either is read, and both print through the same code, so stdout,
// stderr and the exit code are the same local or remote.

import { auditDir } from "../lib/audit/audit-tap.ts";
import { auditLine, decisionProblem, parseSince, readAudit, type AuditFilter } from "../lib/audit/read.ts";
import type { AuditReply } from "../lib/daemon/audit-route.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { stateDir } from "../lib/paths/dirs.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { err, out } from "../lib/util/fd-write.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { daemonRequest } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";
import { cittyArgs } from "./help.ts";

const FLAGS: Record<string, OwnFlag> = {
  since: { type: "string", description: "Records from this long ago (30s, 15m, 1h, 7d) or since an ISO time (2026-01-31T12:00:00Z)", valueHint: "WHEN" },
  server: { type: "string", description: "Calls and hooks of this server only", valueHint: "SERVER" },
  tool: { type: "string", description: "Calls and hooks of this tool only (its name as the server lists it)", valueHint: "TOOL" },
  decision: {
    type: "string",
    description: "Hooks that decided this only: allow, advise, propose, apply, retry, ask, refuse, fail, skip",
    valueHint: "DECISION",
  },
  json: { type: "boolean", description: "Print each record as the JSON line the log holds" },
  remote: { type: "boolean", description: "Read the daemon's audit log (mcpx daemon, GET /v1/audit), printed here as locally" },
};

export default defineCommand({
  meta: { name: "audit", description: COMMAND_DESCRIPTIONS.audit },
  args: cittyArgs("audit", FLAGS),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("audit", rawArgs, FLAGS);
    const extra = [...parsed.positionals, ...parsed.rest];
    if (extra.length)
      throw new UsageError(`takes no arguments (got ${extra.join(" ")}): mcpx audit [--since WHEN] [--server S] [--tool T] [--decision D] [--json]`);
    const own = parsed.own as Record<string, string | boolean | undefined>;
    const query = filterFlags(own);
    const filter = filterOf(query);
    const session = sessionFromArgs(parsed);
    const reply = wantsDaemon(parsed.own, session)
      ? await daemonRequest<AuditReply>(session, "GET", `/v1/audit${query.size ? `?${query}` : ""}`)
      : readAudit(auditDir(stateDir(session.env)), filter);
    if (reply.skipped > 0) err(`mcpx: ${reply.skipped} line(s) of the audit log are not records (cut short?): skipped\n`);
    const lines = reply.records.map((r) => (own.json ? JSON.stringify(r) : auditLine(r)));
    if (lines.length) out(lines.join("\n") + "\n");
    else if (!own.json) err("mcpx: no audit record matches\n");
  },
});

/** the filter flags as given, each checked: a bad value is a usage error naming the flag and what it accepts */
function filterFlags(own: Record<string, string | boolean | undefined>): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ["since", "server", "tool", "decision"] as const) {
    const value = own[name];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "") throw new UsageError(`--${name} takes a value (mcpx audit --help)`);
    const since = name === "since" ? parseSince(value, Date.now()) : undefined;
    const problem = typeof since === "string" ? since : name === "decision" ? decisionProblem(value) : undefined;
    if (problem !== undefined) throw new UsageError(`--${name}: ${problem}`);
    query.set(name, value);
  }
  return query;
}

/** the checked flags as the reader's filter */
function filterOf(query: URLSearchParams): AuditFilter {
  const since = query.get("since");
  return {
    ...(since !== null ? { since: parseSince(since, Date.now()) as number } : {}),
    ...(query.has("server") ? { server: query.get("server")! } : {}),
    ...(query.has("tool") ? { tool: query.get("tool")! } : {}),
    ...(query.has("decision") ? { decision: query.get("decision") as AuditFilter["decision"] } : {}),
  };
}
