// mcpx_exec's side of approvals: `resume` turns into the paused run's request (the fields sent
// beside it replace the stored ones, so a changed source is replayed, and diverges) and its call
// log; a run that paused becomes a pending approval, and its answer says so (structuredContent.pending).
// An agent may resume a decided approval; it cannot decide one (lib/approvals/store.ts).

import { newApprovalId, loadPending, removePending, savePending, type PendingApproval } from "./store.ts";
import { newCallLog, type CallLog } from "./call-log.ts";

type Env = Record<string, string | undefined>;

/** `consume` uses the approval up, once the request is known to be one that runs */
export type PreparedRun = { ok: true; args: Record<string, unknown>; log: CallLog; consume(): void } | { ok: false; message: string };

/** the agent session asking (lib/mcpserver/agent-session.ts), and whether a session that paused a run is still there */
export interface Resumer {
  id: string;
  pid: number;
  live(owner: string, pid: number): boolean;
}

/** `by`: an approval another session paused is not this one's to resume while that session lasts */
export function prepareRun(sent: Record<string, unknown>, env: Env, by?: Resumer): PreparedRun {
  if (!Object.hasOwn(sent, "resume")) return { ok: true, args: sent, log: newCallLog(), consume: () => {} };
  const { resume: id, ...rest } = sent;
  const loaded = loadPending(env, id);
  if (!loaded.ok) return { ok: false, message: `mcpx_exec cannot resume: ${loaded.message}` };
  const r = loaded.record;
  if (r.owner !== undefined && r.owner !== by?.id && (r.ownerPid === undefined || !by || by.live(r.owner, r.ownerPid)))
    return {
      ok: false,
      message: `mcpx_exec cannot resume ${r.id}: another agent session paused that run, and only it may resume it while it lasts (run the script anew here)`,
    };
  if (!r.decision)
    return { ok: false, message: `mcpx_exec cannot resume ${r.id} yet: nobody has decided it (the user runs mcpx approve ${r.id} or mcpx reject ${r.id})` };
  // used up: the approved call is sent by this resume, and never by another
  return { ok: true, args: { ...r.run, ...rest }, log: newCallLog(r), consume: () => removePending(env, r.id) };
}

/** the pending approval a paused run leaves, and what mcpx_exec answers; undefined when the run did not pause */
export function pausedRun(
  log: CallLog,
  args: Record<string, unknown>,
  env: Env,
  ttlMs: number,
  owner?: { id: string; pid: number },
  now = Date.now(),
): { text: string; pending: Record<string, unknown> } | undefined {
  if (!log.paused) return undefined;
  // every call the run made, those made in parallel after the paused one too: none is sent twice
  const { index, ...call } = log.paused;
  const record: PendingApproval = {
    id: newApprovalId(),
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlMs).toISOString(),
    ...call,
    run: args,
    log: Array.from(log.made, (c) => c ?? null),
    pausedAt: index,
    ...(owner !== undefined ? { owner: owner.id, ownerPid: owner.pid } : {}),
  };
  savePending(env, record);
  const pending = {
    id: record.id,
    server: record.server,
    tool: record.tool,
    arguments: record.arguments,
    question: record.question,
    expiresAt: record.expiresAt,
  };
  const text =
    `paused: ${record.server}.${record.tool} waits for a person's yes (${record.question}); it was not sent. ` +
    `Ask the user to run mcpx approve ${record.id} (or mcpx reject ${record.id}), then call mcpx_exec {"resume": "${record.id}"}`;
  return { text, pending };
}
