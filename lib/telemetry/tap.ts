// The telemetry tap: what the instrumentation points tell whoever listens (the audit log, and
// OpenTelemetry spans and metrics when they are configured: lib/telemetry/otel-tap.ts). A leaf that
// imports nothing, so the exec path, the gate and the doors can all reach it without an import
// cycle. The points are: a run (lib/exec/execute.ts), an upstream tools/call (lib/exec/gated-call.ts,
// both of its paths) and each hook that ran (lib/hooks/gate.ts). The gate carries the tap
// (Gate.tap), so every view of it (a run's, a hook's, a served request's) reports to the same one.
// Absent, a point pays one property read and no more.

/** the door a run came through: cli (the local CLI), http (the daemon's /v1), mcp (mcpx_exec on mcpx serve or /mcp) */
export type Door = "cli" | "http" | "mcp";

/**
 * who made the run: the user (the CLI, /v1 over the unix socket or over TCP with the token) or an
 * agent (mcpx serve, the daemon's /mcp); the door says which (lib/trust/door-authority.ts Caller)
 */
export type TapCaller = "user" | "agent";

/**
 * W3C trace context as a caller hands it over (the `traceparent` header of POST /v1/exec, `_meta` of a
 * served tools/call) and as mcpx hands it upstream (`params._meta` of its tools/call): the two fields
 * of https://www.w3.org/TR/trace-context/, as text, checked by lib/telemetry/trace-carrier.ts
 */
// a type, not an interface: it is handed on as a `_meta` record (Record<string, string>)
export type TraceCarrier = {
  traceparent: string;
  tracestate?: string;
};

/** every door's caller: the same table design §7 gives */
export const CALLER_OF_DOOR: Readonly<Record<Door, TapCaller>> = { cli: "user", http: "user", mcp: "agent" };

/** a run starting */
export interface RunStart {
  runId: string;
  door: Door;
  caller: TapCaller;
  /** the runtime asked for (auto, bun, deno, node, quickjs) */
  runtime: string;
  /** the caller's trace context, where its door carried one: the run continues the caller's trace */
  parent?: TraceCarrier;
}

/** how a run ended: exitCode as the `end` frame says it */
export interface RunEnd {
  ok: boolean;
  exitCode: number;
  durationMs: number;
}

/** one upstream tools/call starting (after the tool's name is resolved) */
export interface CallStart {
  /** the run the call belongs to; absent for a call outside a run (mcpx call, /v1/call, mcpx_call) */
  runId?: string;
  /** the door, where it is known without the run (the run's start says it otherwise) */
  door?: Door;
  server: string;
  tool: string;
  /** the arguments as the caller sent them: a tap that writes them down decides what of them it keeps */
  args: Readonly<Record<string, unknown>>;
  /** the hooks whose actions made this call, outermost first (lib/hooks/call-chain.ts) */
  by?: readonly string[];
}

/** how a call ended */
export interface CallEnd {
  ok: boolean;
  durationMs: number;
  /** the server answered with `isError: true` (errorCode TOOL_ERROR) */
  isError: boolean;
  /** the frame error code (lib/errors/codes.ts) of a failed call: TOOL_ERROR, CALL_REFUSED, UPSTREAM_ERROR, … */
  errorCode?: string;
}

/**
 * What one hook did to its operation, least to most, a word per outcome (the dial's words where
 * there is one). `ask`: it asked a person, who let the operation go on; an ask nobody answered, or
 * answered no, is `refuse`, and so is a hook that failed closed.
 */
export const HOOK_DECISIONS = ["allow", "advise", "propose", "apply", "retry", "ask", "refuse", "fail", "skip"] as const;
export type HookDecision = (typeof HOOK_DECISIONS)[number];

/** one hook that ran (or was skipped), once its outcome is settled */
export interface HookRecord {
  runId?: string;
  /** the door, where it is known without the run (as CallStart.door) */
  door?: Door;
  /** the point (script, call, server.start, …) */
  point: string;
  phase: string;
  name: string;
  /** source, run, module, prompt, plugin */
  action: string;
  /** the effective level after the three clamps */
  effect: string;
  decision: HookDecision;
  /** keys the dial dropped, each with why */
  dropped?: readonly string[];
  /** the server and tool of the operation, where the point has them */
  server?: string;
  tool?: string;
  /** why it failed (a failed hook, open or closed) */
  failed?: string;
  /** why a refusal refused */
  reason?: string;
  durationMs: number;
}

export interface RunSpan {
  end(info: RunEnd): void;
}

export interface CallSpan {
  end(info: CallEnd): void;
  /** the trace context to send upstream in the call's `params._meta`; absent where no tap traces */
  traceMeta?(): TraceCarrier | undefined;
}

/** a listener at the instrumentation points; none of its methods may throw into the operation */
export interface Tap {
  run(start: RunStart): RunSpan;
  call(start: CallStart): CallSpan;
  hook(record: HookRecord): void;
  /** hands over what is still buffered, within a bound of its own; the engine awaits it when it closes */
  close?(): Promise<void>;
}

/** several taps as one, in order; undefined when there is none, so the points' `if (tap)` costs nothing */
export function fanOut(taps: ReadonlyArray<Tap | undefined>): Tap | undefined {
  const all = taps.filter((t): t is Tap => t !== undefined);
  if (all.length <= 1) return all[0];
  return {
    run(start) {
      const spans = all.map((t) => t.run(start));
      return {
        end(info) {
          for (const s of spans) s.end(info);
        },
      };
    },
    call(start) {
      const spans = all.map((t) => t.call(start));
      return {
        end(info) {
          for (const s of spans) s.end(info);
        },
        traceMeta() {
          for (const s of spans) {
            const meta = s.traceMeta?.();
            if (meta) return meta;
          }
          return undefined;
        },
      };
    },
    hook(record) {
      for (const t of all) t.hook(record);
    },
    async close() {
      await Promise.all(all.map((t) => t.close?.()));
    },
  };
}
