// The audit log's records: one JSON object a line, each a run that ended, an upstream call that
// ended, or a hook that ran (docs/audit.md has the fields). Types only, plus the file names.

import type { Door, HookRecord, TapCaller } from "../telemetry/tap.ts";
import type { Shape } from "./shape.ts";

/** the live file; rotated ones are audit.1.jsonl (newest) … audit.N.jsonl */
export const AUDIT_FILE = "audit.jsonl";

/** what every record has: when it was written, what it is, and the run and door it belongs to where known */
interface Common {
  /** ISO time the record was written (when the run, call or hook ended) */
  ts: string;
  runId?: string;
  door?: Door;
  caller?: TapCaller;
}

export interface RunRecord extends Common {
  kind: "run";
  runtime: string;
  ok: boolean;
  exitCode: number;
  durationMs: number;
}

export interface CallRecord extends Common {
  kind: "call";
  server: string;
  tool: string;
  /** keys and JSON types of the arguments, never their values */
  args: Shape;
  /** the arguments, secrets redacted: only with audit.values on */
  values?: unknown;
  ok: boolean;
  isError: boolean;
  errorCode?: string;
  durationMs: number;
  /** the hooks whose actions made the call, outermost first */
  by?: string[];
}

/** a hook as the tap reports it (lib/telemetry/tap.ts HookRecord), its run's door and caller beside it */
export interface HookRecordLine extends Common, Omit<HookRecord, "runId" | "door" | "dropped"> {
  kind: "hook";
  dropped?: string[];
}

export type AuditRecord = RunRecord | CallRecord | HookRecordLine;
