// A caller's W3C trace context, taken from where its door carries it: the `traceparent` and
// `tracestate` headers of POST /v1/exec, the `params._meta` of a tools/call to mcpx serve or /mcp
// (the MCP convention). Pure and free of OpenTelemetry packages, so a door pays nothing for it when
// nobody traces; a traceparent that is not the W3C form is left out, as the recommendation says a
// receiver must (the run then starts a trace of its own).

import type { TraceCarrier } from "./tap.ts";

/** version 00's form (and a later version's first four fields): version-traceid-spanid-flags, lower-case hex */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** a traceparent that the W3C recommendation accepts: not version ff, not an all-zero trace or parent id */
export function validTraceparent(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return false;
  const [, version, traceId, spanId] = m;
  if (version === "ff" || (version === "00" && m[5] !== undefined)) return false;
  return !/^0+$/.test(traceId!) && !/^0+$/.test(spanId!);
}

/** the trace context in a request's `_meta`, if it holds a valid one */
export function carrierFromMeta(meta: unknown): TraceCarrier | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  if (!validTraceparent(traceparent)) return undefined;
  return { traceparent: traceparent.trim(), ...(typeof tracestate === "string" && tracestate !== "" ? { tracestate } : {}) };
}

/** ExecContext.traceParent, or nothing, to spread into a door's context */
export function withTraceParent(carrier: TraceCarrier | undefined): { traceParent?: TraceCarrier } {
  return carrier ? { traceParent: carrier } : {};
}

/** the trace context in HTTP request headers, if they hold a valid one */
export function carrierFromHeaders(headers: Headers): TraceCarrier | undefined {
  const traceparent = headers.get("traceparent");
  if (traceparent === null) return undefined;
  return carrierFromMeta({ traceparent, tracestate: headers.get("tracestate") ?? undefined });
}
