// Pending approvals: a run that an `ask` hook paused (nobody could answer it) waits here, in the
// state directory, for the user's yes or no (mcpx approve / mcpx reject) and for its resume
// (mcpx_exec {"resume": ID}). Each record holds the run's request and its call log up to the paused
// call, so that the resume answers those calls from the log instead of sending them again.
// Deciding is the user's alone: nothing an agent can reach (mcpx_exec, mcpx_call) writes a decision.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stateDir } from "../paths/dirs.ts";
import type { CallAnswer } from "../runtime/runner.ts";
import { randomHex } from "../util/random-bytes.ts";

type Env = Record<string, string | undefined>;

/** one call the paused run sent, at the place it was made: answered from here on resume */
export interface LoggedCall {
  server: string;
  tool: string;
  argsHash: string;
  /** absent when the run ended before the answer came: the resume fails that call rather than send it again */
  answer?: CallAnswer;
}

export interface PendingApproval {
  id: string;
  createdAt: string;
  expiresAt: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** the question the guard asked */
  question: string;
  /** the mcpx_exec arguments of the paused run (without `resume`) */
  run: Record<string, unknown>;
  /** every call the run made, by the place it was made at; null where nothing was sent (the paused call, calls held back after it) */
  log: (LoggedCall | null)[];
  /** the paused call's place in `log` */
  pausedAt?: number;
  /** the agent session that paused the run, and its process: only it may resume while it lasts (lib/mcpserver/agent-session.ts) */
  owner?: string;
  ownerPid?: number;
  decision?: { approved: boolean; reason?: string; at: string };
}

/** what `mcpx approvals --json` and GET /v1/approvals show of one: the record without its request and call log */
export type ApprovalRow = Omit<PendingApproval, "run" | "log"> & { expired: boolean };

/** why an approval cannot be used: the id is not one, none has it, or it expired (the daemon answers 400, 404, 410) */
export type NoApproval = { ok: false; why: "id" | "unknown" | "expired"; message: string };

const ID = /^[0-9a-f]{12}$/;

const notAnId = (id: unknown) => `approval id ${JSON.stringify(id)} is not one: ids are 12 hex digits, as mcpx approvals lists them`;

/** why `id` is not an approval id, or undefined when it is one; pure, so a caller can check before it asks anyone */
export function approvalIdProblem(id: string): string | undefined {
  return ID.test(id) ? undefined : notAnId(id);
}

function dir(env: Env): string {
  return join(stateDir(env), "approvals");
}

export function newApprovalId(): string {
  return randomHex(6);
}

export function savePending(env: Env, record: PendingApproval): void {
  mkdirSync(dir(env), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir(env), `${record.id}.json`), JSON.stringify(record), { mode: 0o600 });
}

export function removePending(env: Env, id: string): void {
  if (ID.test(id)) rmSync(join(dir(env), `${id}.json`), { force: true });
}

/** every pending approval as its row, oldest first, with whether it has expired */
export function approvalRows(env: Env, now = Date.now()): ApprovalRow[] {
  let names: string[];
  try {
    names = readdirSync(dir(env)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  const out: ApprovalRow[] = [];
  for (const n of names) {
    try {
      out.push(approvalRow(JSON.parse(readFileSync(join(dir(env), n), "utf8")) as PendingApproval, now));
    } catch {
      // a record being written, or not one of ours: not listed
    }
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** one record as its row */
export function approvalRow(record: PendingApproval, now = Date.now()): ApprovalRow {
  const { log: _log, run: _run, ...row } = record;
  return { ...row, expired: Date.parse(record.expiresAt) <= now };
}

/** the approval named `id`, or why there is none to use (unknown, malformed id, expired) */
export function loadPending(env: Env, id: unknown, now = Date.now()): { ok: true; record: PendingApproval } | NoApproval {
  if (typeof id !== "string" || !ID.test(id)) return { ok: false, why: "id", message: notAnId(id) };
  let record: PendingApproval;
  try {
    record = JSON.parse(readFileSync(join(dir(env), `${id}.json`), "utf8")) as PendingApproval;
  } catch {
    return { ok: false, why: "unknown", message: `no pending approval ${id} (mcpx approvals lists them; a resumed one is used up)` };
  }
  if (Date.parse(record.expiresAt) <= now)
    return { ok: false, why: "expired", message: `approval ${id} expired at ${record.expiresAt} (approvals.ttl): run it again to ask again` };
  return { ok: true, record };
}

/** the user's decision on a pending approval; returns the record decided */
export function decidePending(env: Env, id: string, approved: boolean, reason?: string): { ok: true; record: PendingApproval } | NoApproval {
  const loaded = loadPending(env, id);
  if (!loaded.ok) return loaded;
  const record: PendingApproval = { ...loaded.record, decision: { approved, ...(reason !== undefined ? { reason } : {}), at: new Date().toISOString() } };
  savePending(env, record);
  return { ok: true, record };
}
