// GET /v1/approvals, POST /v1/approvals/{id}/approve and /reject: the user's side of a run an `ask`
// hook paused (lib/approvals/store.ts), served to `mcpx approvals|approve|reject --remote` and to
// anyone holding the daemon's socket or token, who is the user (design §7). The /mcp door offers no
// tool that reaches these: an agent can only resume a decided run. The store is the daemon's, in its
// own state directory (its environment), not the caller's.

import * as v from "valibot";
import { approvalRow, approvalRows, decidePending, type ApprovalRow, type NoApproval } from "../approvals/store.ts";
import type { Handler } from "./context.ts";
import { errorResponse, json, readJson } from "./http.ts";
import { describeIssues, issuesSummary, type BodyIssue } from "./validate.ts";

/** GET /v1/approvals answers (200) */
export interface ApprovalsReply {
  approvals: ApprovalRow[];
}

/** POST /v1/approvals/{id}/approve and /reject answer (200): the decided approval */
export interface DecidedReply {
  approval: ApprovalRow;
}

/**
 * The status and error code of each reason an approval cannot be decided. The codes are the
 * client's to recognise (cmd/approvals.ts turns them back into the local command's exit 2), so they
 * differ from the router's NOT_FOUND: a daemon that predates these routes is told apart.
 */
export const NO_APPROVAL: Record<NoApproval["why"], { status: number; answer: string }> = {
  id: { status: 400, answer: "BAD_APPROVAL_ID" },
  unknown: { status: 404, answer: "NO_APPROVAL" },
  expired: { status: 410, answer: "APPROVAL_EXPIRED" },
};

const ApproveBodySchema = v.strictObject({});
const RejectBodySchema = v.strictObject({ reason: v.optional(v.string()) });

export const approvalsRoute: Handler = (_req, { deps }) => json({ approvals: approvalRows(deps.session.env) } satisfies ApprovalsReply);

export const approveRoute: Handler = (req, ctx) => decide(req, ctx, true);
export const rejectRoute: Handler = (req, ctx) => decide(req, ctx, false);

async function decide(req: Request, { deps, params }: Parameters<Handler>[1], approved: boolean): Promise<Response> {
  // the body is optional: none is the same as {}
  const body = await readJson(req, deps.maxBody, { optional: true });
  if (!body.ok) return body.response;
  const schema = approved ? ApproveBodySchema : RejectBodySchema;
  const parsed = v.safeParse(schema, body.value === undefined ? {} : body.value);
  // valibot takes an array for an object with no required keys: `[]` is no body of ours either
  const issues: BodyIssue[] = Array.isArray(body.value)
    ? [{ path: "(body)", message: "expected Object, got Array" }]
    : parsed.success
      ? []
      : describeIssues(schema, parsed.issues);
  if (!parsed.success || issues.length) {
    const what = approved ? "an approval (approve takes no body, or {}; a reason goes with reject)" : "a rejection ({} or {reason})";
    return errorResponse(400, "BAD_REQUEST", `the body is not ${what}: ${issuesSummary(issues)}`, { issues });
  }
  const reason = "reason" in parsed.output ? parsed.output.reason : undefined;
  const decided = decidePending(deps.session.env, params.id!, approved, reason);
  if (!decided.ok) {
    const { status, answer: code } = NO_APPROVAL[decided.why];
    return errorResponse(status, code, decided.message);
  }
  return json({ approval: approvalRow(decided.record) } satisfies DecidedReply);
}
