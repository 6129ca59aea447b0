// A local OTLP/HTTP receiver for the telemetry tests: Bun.serve on 127.0.0.1:0 taking POST
// /v1/traces and /v1/metrics, decoded with the official OTLP definitions (the opentelemetry-proto
// .proto files under fixtures/otlp, read by protobufjs): http/protobuf by the messages themselves,
// http/json by the JSON mapping of the same messages (with OTLP's one exception: trace and span ids
// are hex, not base64). What arrives is flattened into spans and metric points a test can match.

import { join } from "node:path";
import protobuf from "protobufjs";
import { ROOT } from "./harness.ts";

const PROTO_DIR = join(ROOT, "fixtures/otlp");
const TRACES = "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest";
const METRICS = "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest";

/** how long a test waits for what it expects to arrive: the CLI flushes at its end, a daemon when stopped */
const ARRIVAL_TIMEOUT_MS = 15_000;

type Attrs = Record<string, unknown>;

export interface ReceivedSpan {
  name: string;
  /** the proto's SpanKind number: 1 internal, 2 server, 3 client */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attrs;
  status: { code: number; message?: string };
  resource: Attrs;
  scope: string;
}

interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Attrs;
  count: number;
  sum: number;
  resource: Attrs;
}

export interface Receiver {
  /** the base endpoint: OTEL_EXPORTER_OTLP_ENDPOINT */
  url: string;
  spans: ReceivedSpan[];
  points: ReceivedPoint[];
  /** the content type of each request, in arrival order */
  contentTypes: string[];
  /** resolves once `ready()` holds for what has arrived, failing after ARRIVAL_TIMEOUT_MS with `what` */
  until(ready: (r: Receiver) => boolean, what: string): Promise<void>;
  stop(): void;
}

let root: protobuf.Root | undefined;
function definitions(): protobuf.Root {
  if (root) return root;
  const r = new protobuf.Root();
  r.resolvePath = (_origin, target) => join(PROTO_DIR, target);
  r.loadSync(["opentelemetry/proto/collector/trace/v1/trace_service.proto", "opentelemetry/proto/collector/metrics/v1/metrics_service.proto"]);
  root = r;
  return r;
}

const ID_KEYS = new Set(["traceId", "spanId", "parentSpanId"]);

/** OTLP/JSON's ids are hex where the proto JSON mapping has base64: made bytes before the mapping reads them */
function hexIdsToBytes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(hexIdsToBytes);
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, ID_KEYS.has(k) && typeof x === "string" ? Uint8Array.from(Buffer.from(x, "hex")) : hexIdsToBytes(x)]),
  );
}

function decode(typeName: string, body: Uint8Array, contentType: string): Record<string, any> {
  const type = definitions().lookupType(typeName);
  const message = contentType.includes("json") ? type.fromObject(hexIdsToBytes(JSON.parse(new TextDecoder().decode(body))) as object) : type.decode(body);
  return type.toObject(message, { longs: Number, enums: Number, bytes: Array, arrays: true });
}

const hex = (bytes: number[] | undefined) => (bytes && bytes.length > 0 ? Buffer.from(bytes).toString("hex") : undefined);

/** an AnyValue as a plain value */
function plainValue(v: Record<string, any> | undefined): unknown {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return v.doubleValue;
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

function attrs(list: Array<{ key: string; value: Record<string, any> }> | undefined): Attrs {
  return Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));
}

function spansOf(req: Record<string, any>): ReceivedSpan[] {
  return (req.resourceSpans ?? []).flatMap((rs: any) =>
    (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((s: any) => ({
        name: s.name,
        kind: s.kind,
        traceId: hex(s.traceId)!,
        spanId: hex(s.spanId)!,
        ...(hex(s.parentSpanId) ? { parentSpanId: hex(s.parentSpanId) } : {}),
        attributes: attrs(s.attributes),
        status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
        resource: attrs(rs.resource?.attributes),
        scope: ss.scope?.name ?? "",
      })),
    ),
  );
}

function pointsOf(req: Record<string, any>): ReceivedPoint[] {
  return (req.resourceMetrics ?? []).flatMap((rm: any) =>
    (rm.scopeMetrics ?? []).flatMap((sm: any) =>
      (sm.metrics ?? []).flatMap((m: any) =>
        (m.histogram?.dataPoints ?? []).map((p: any) => ({
          metric: m.name,
          unit: m.unit,
          attributes: attrs(p.attributes),
          count: Number(p.count),
          sum: p.sum,
          resource: attrs(rm.resource?.attributes),
        })),
      ),
    ),
  );
}

export function otlpReceiver(): Receiver {
  const waiting = new Set<() => void>();
  const r: Receiver = {
    url: "",
    spans: [],
    points: [],
    contentTypes: [],
    until(ready, what) {
      if (ready(r)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!ready(r)) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`the OTLP receiver did not get ${what} within ${ARRIVAL_TIMEOUT_MS}ms: ${JSON.stringify({ spans: r.spans, points: r.points })}`));
        }, ARRIVAL_TIMEOUT_MS);
        waiting.add(check);
      });
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || (path !== "/v1/traces" && path !== "/v1/metrics")) return new Response("not found", { status: 404 });
      const contentType = req.headers.get("content-type") ?? "";
      const body = new Uint8Array(await req.arrayBuffer());
      r.contentTypes.push(contentType);
      if (path === "/v1/traces") r.spans.push(...spansOf(decode(TRACES, body, contentType)));
      else r.points.push(...pointsOf(decode(METRICS, body, contentType)));
      for (const check of [...waiting]) check();
      // an empty Export*ServiceResponse: full success, in the encoding asked in
      return contentType.includes("json") ? Response.json({}) : new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  r.url = `http://127.0.0.1:${server.port}`;
  return r;
}
