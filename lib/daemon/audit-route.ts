// GET /v1/audit: the daemon's audit log (lib/audit), the records `mcpx audit --remote` prints, with
// the same filters as query parameters: since (a duration back from now, or an ISO time), server,
// tool and decision. The log is the daemon's own, in its state directory (its environment). Behind
// the same auth as every /v1 route: the socket's mode, or the token on TCP.

import * as v from "valibot";
import { readAudit, parseSince } from "../audit/read.ts";
import { auditDir } from "../audit/audit-tap.ts";
import type { AuditRecord } from "../audit/records.ts";
import { stateDir } from "../paths/dirs.ts";
import { HOOK_DECISIONS } from "../telemetry/tap.ts";
import type { Handler } from "./context.ts";
import { errorResponse, json } from "./http.ts";
import { describeIssues, issuesSummary } from "./validate.ts";

/** GET /v1/audit answers (200): the records, oldest first, and how many lines were not records */
export interface AuditReply {
  records: AuditRecord[];
  skipped: number;
}

const nonEmpty = (what: string) => v.pipe(v.string(), v.minLength(1, `${what} must not be empty`));

const AuditQuerySchema = v.strictObject({
  since: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (s) => typeof parseSince(s, Date.now()) === "number",
        (issue) => String(parseSince(String(issue.input), Date.now())),
      ),
    ),
  ),
  server: v.optional(nonEmpty("server")),
  tool: v.optional(nonEmpty("tool")),
  decision: v.optional(v.picklist(HOOK_DECISIONS, `not a hook decision: use one of ${HOOK_DECISIONS.join(", ")}`)),
});

export const auditRoute: Handler = (_req, { deps, url }) => {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    query[key] = all.length === 1 ? all[0]! : all;
  }
  const parsed = v.safeParse(AuditQuerySchema, query);
  if (!parsed.success) {
    const issues = describeIssues(AuditQuerySchema, parsed.issues);
    return errorResponse(400, "BAD_REQUEST", `GET /v1/audit: ${issuesSummary(issues)}`, { issues });
  }
  const { since, ...rest } = parsed.output;
  const filter = { ...rest, ...(since !== undefined ? { since: parseSince(since, Date.now()) as number } : {}) };
  return json(readAudit(auditDir(stateDir(deps.session.env)), filter) satisfies AuditReply);
};
