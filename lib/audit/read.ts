// Reading the audit log back (mcpx audit, GET /v1/audit): every file oldest first, filtered by
// time, server, tool and hook decision, and each record as the one text line mcpx audit prints.
// The filters are parsed here, once, for both: the same value is the same error on either door.

import { readFileSync } from "node:fs";
import { parseDuration } from "../settings/duration.ts";
import { HOOK_DECISIONS, type HookDecision } from "../telemetry/tap.ts";
import { auditPath } from "./audit-file.ts";
import type { AuditRecord } from "./records.ts";

export interface AuditFilter {
  /** records written at or after this time (ms since the epoch) */
  since?: number;
  server?: string;
  tool?: string;
  /** hook records with this decision only */
  decision?: HookDecision;
}

/** the most rotated files read back: far beyond any audit.keep worth having, a bound on a directory scan */
const MAX_ROTATED = 1000;

const DAY_MS = 86_400_000;

/**
 * --since: a duration back from `now` (250ms, 30s, 5m, 1h, or days: 7d) or an ISO 8601 time
 * (2026-01-31, 2026-01-31T12:00:00Z); ms since the epoch, or the error naming what is accepted.
 */
export function parseSince(text: string, now: number): number | string {
  const days = /^(\d+)d$/.exec(text.trim());
  if (days) return now - Number(days[1]) * DAY_MS;
  const d = parseDuration(text);
  if (typeof d === "number") return now - d;
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const t = Date.parse(text);
    if (!Number.isNaN(t)) return t;
  }
  return `"${text}" is neither a duration back from now (like 30s, 15m, 1h or 7d) nor an ISO time (like 2026-01-31 or 2026-01-31T12:00:00Z)`;
}

/** what is wrong with a --decision value (the accepted ones), or undefined when it is one */
export function decisionProblem(text: string): string | undefined {
  return (HOOK_DECISIONS as readonly string[]).includes(text) ? undefined : `"${text}" is not a hook decision: use one of ${HOOK_DECISIONS.join(", ")}`;
}

/** true when `r` passes every filter set; server, tool and decision keep only the records that have them */
export function matchesFilter(r: AuditRecord, f: AuditFilter): boolean {
  if (f.since !== undefined && !(Date.parse(r.ts) >= f.since)) return false;
  if (f.server !== undefined && (r.kind === "run" || r.server !== f.server)) return false;
  if (f.tool !== undefined && (r.kind === "run" || r.tool !== f.tool)) return false;
  if (f.decision !== undefined && (r.kind !== "hook" || r.decision !== f.decision)) return false;
  return true;
}

/**
 * The records of the audit log in `dir` that pass `filter`, oldest file first and each file in the
 * order it was written; `skipped` counts lines that are not a record (a line cut by a full disk).
 */
export function readAudit(dir: string, filter: AuditFilter): { records: AuditRecord[]; skipped: number } {
  const records: AuditRecord[] = [];
  let skipped = 0;
  const files: string[] = [];
  for (let n = 0; n <= MAX_ROTATED; n++) {
    let text: string;
    try {
      text = readFileSync(auditPath(dir, n), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") {
        if (n === 0) continue; // no live file yet: rotated ones may still be there
        break;
      }
      throw e;
    }
    files.unshift(text);
  }
  for (const text of files) {
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let r: AuditRecord;
      try {
        r = JSON.parse(line) as AuditRecord;
      } catch {
        skipped++;
        continue;
      }
      if (typeof r !== "object" || r === null || typeof r.ts !== "string") {
        skipped++;
        continue;
      }
      if (matchesFilter(r, filter)) records.push(r);
    }
  }
  return { records, skipped };
}

/** one record as mcpx audit's text line: time, kind, run, door/caller, what, outcome, duration, detail (tab-separated) */
export function auditLine(r: AuditRecord): string {
  const run = r.runId ?? "-";
  const who = `${r.door ?? "-"}/${r.caller ?? "-"}`;
  const cols =
    r.kind === "run"
      ? [r.runtime, `exit ${r.exitCode}`, `${r.durationMs}ms`, ""]
      : r.kind === "call"
        ? [`${r.server}.${r.tool}`, r.ok ? "ok" : (r.errorCode ?? "error"), `${r.durationMs}ms`, JSON.stringify(r.args)]
        : [
            `${r.point}.${r.phase} ${r.name}${r.server !== undefined ? ` ${r.server}${r.tool !== undefined ? `.${r.tool}` : ""}` : ""}`,
            r.decision,
            `${r.durationMs}ms`,
            r.reason ?? r.failed ?? "",
          ];
  return [r.ts, r.kind, run, who, ...cols].join("\t");
}
