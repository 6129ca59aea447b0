// The audit log as a telemetry tap (lib/telemetry/tap.ts): a record per run that ended, per
// upstream call that ended and per hook that ran, appended to $XDG_STATE_HOME/mcpx/audit/audit.jsonl
// (audit-file.ts). A call's arguments are written as their shape; their values only with
// audit.values on, and then never a secret (shape.ts). Calls and hooks of a run name its door and
// caller, from the run's start, held only while the run goes on.

import { join } from "node:path";
import {
  CALLER_OF_DOOR,
  type CallEnd,
  type CallStart,
  type Door,
  type HookRecord,
  type RunEnd,
  type RunStart,
  type Tap,
  type TapCaller,
} from "../telemetry/tap.ts";
import { appendAuditLine, type AuditFileOptions } from "./audit-file.ts";
import type { AuditRecord, CallRecord, HookRecordLine, RunRecord } from "./records.ts";
import { redactValues, scrub, shapeOf } from "./shape.ts";

/** the audit log's folder under a state directory (lib/paths/dirs.ts stateDir) */
export function auditDir(stateDir: string): string {
  return join(stateDir, "audit");
}

/** a hook's reason or failure is the hook's own words: bounded, so one hook cannot fill the log */
const REASON_CHARS = 500;

export interface AuditTapOptions extends AuditFileOptions {
  /** audit.values: write the call's arguments too, secrets redacted */
  values: boolean;
  /** mcpx's own secret settings' values (daemon.token, model.apiKey): never written, wherever they appear */
  secrets: readonly string[];
  /** told once when a record cannot be written; the operation carries on */
  warn(message: string): void;
  /** the clock, for tests */
  now?: () => Date;
}

export function auditTap(opts: AuditTapOptions): Tap {
  const secrets = opts.secrets.filter((s) => s.length > 0);
  const now = opts.now ?? (() => new Date());
  const runs = new Map<string, { door: Door; caller: TapCaller }>();
  let warned = false;
  const write = (record: AuditRecord) => {
    try {
      appendAuditLine(opts, JSON.stringify(record));
    } catch (e) {
      if (warned) return;
      warned = true;
      opts.warn(`the audit log (${opts.dir}) was not written: ${(e as Error).message} (audit.enabled false turns it off)`);
    }
  };
  const who = (runId: string | undefined, door?: Door) => {
    const run = runId === undefined ? undefined : runs.get(runId);
    if (run) return run;
    return door ? { door, caller: CALLER_OF_DOOR[door] } : {};
  };
  const words = (text: string | undefined) => (text === undefined ? undefined : scrub(text, secrets).slice(0, REASON_CHARS));
  return {
    run(start: RunStart) {
      runs.set(start.runId, { door: start.door, caller: start.caller });
      return {
        end(info: RunEnd) {
          runs.delete(start.runId);
          const { runId, door, caller, runtime } = start;
          const record: RunRecord = { ts: now().toISOString(), kind: "run", runId, door, caller, runtime, ...info };
          write(record);
        },
      };
    },
    call(start: CallStart) {
      return {
        end(info: CallEnd) {
          const record: CallRecord = {
            ts: now().toISOString(),
            kind: "call",
            ...(start.runId !== undefined ? { runId: start.runId } : {}),
            ...who(start.runId, start.door),
            server: start.server,
            tool: start.tool,
            args: shapeOf(start.args),
            ...(opts.values ? { values: redactValues(start.args, secrets) } : {}),
            ok: info.ok,
            isError: info.isError,
            ...(info.errorCode !== undefined ? { errorCode: info.errorCode } : {}),
            durationMs: info.durationMs,
            ...(start.by?.length ? { by: [...start.by] } : {}),
          };
          write(record);
        },
      };
    },
    hook(h: HookRecord) {
      const record: HookRecordLine = {
        ts: now().toISOString(),
        kind: "hook",
        ...(h.runId !== undefined ? { runId: h.runId } : {}),
        ...who(h.runId, h.door),
        point: h.point,
        phase: h.phase,
        name: h.name,
        action: h.action,
        effect: h.effect,
        decision: h.decision,
        ...(h.dropped?.length ? { dropped: [...h.dropped] } : {}),
        ...(h.server !== undefined ? { server: h.server } : {}),
        ...(h.tool !== undefined ? { tool: h.tool } : {}),
        ...(h.failed !== undefined ? { failed: words(h.failed) } : {}),
        ...(h.reason !== undefined ? { reason: words(h.reason) } : {}),
        durationMs: h.durationMs,
      };
      write(record);
    },
  };
}
