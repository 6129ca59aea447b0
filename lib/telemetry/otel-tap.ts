// OpenTelemetry as a telemetry tap (tap.ts): a span per run, per upstream tools/call (the MCP
// request span, CLIENT) and per hook, and the mcp.client.operation.duration histogram, exported over
// OTLP/HTTP by the official SDK. Loaded only through otel-load.ts, and only when otel-config.ts finds
// it configured, so a process that does not export never loads a module of it (docs/decisions/0027).
// Spans are batched; close() hands over what is left within FLUSH_TIMEOUT_MS, so a collector that is
// down or slow costs a CLI run that bound at most, and one debug line.

import {
  type Attributes as OtelAttributes,
  type Context,
  context as apiContext,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from "@opentelemetry/core";
import { resourceFromAttributes, detectResources, envDetector } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from "@opentelemetry/sdk-trace";
import { VERSION } from "../version.ts";
import {
  callOutcome,
  callSpan,
  DURATION_BUCKETS_S,
  durationAttributes,
  hookSpan,
  type Kind,
  runOutcome,
  runSpan,
  type SpanOutcome,
} from "./otel-attributes.ts";
import type { OtelConfig, OtlpTarget } from "./otel-config.ts";
import type { CallEnd, CallStart, HookRecord, RunStart, Tap, TraceCarrier } from "./tap.ts";

/**
 * How long the end of a process waits for the last export. Long enough for a collector on the same
 * host or network; short enough that one that is down never holds a CLI run up noticeably. Raise it
 * only with a reason a person waiting on `mcpx exec` would accept.
 */
const FLUSH_TIMEOUT_MS = 2000;

const KINDS: Record<Kind, SpanKind> = { INTERNAL: SpanKind.INTERNAL, SERVER: SpanKind.SERVER, CLIENT: SpanKind.CLIENT };

export interface OtelTapOptions {
  /** one line at debug level: an export that failed, a flush that ran out of time */
  debug(message: string): void;
}

/** the exporters for the configured protocol, each module imported only when its protocol is asked for */
async function exporters(cfg: OtelConfig): Promise<{ spans?: SpanExporter; metrics?: PushMetricExporter }> {
  const url = (t: OtlpTarget) => ({ url: t.url });
  const spans = !cfg.traces
    ? undefined
    : cfg.traces.protocol === "http/json"
      ? new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter(url(cfg.traces))
      : new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter(url(cfg.traces));
  const metrics = !cfg.metrics
    ? undefined
    : cfg.metrics.protocol === "http/json"
      ? new (await import("@opentelemetry/exporter-metrics-otlp-http")).OTLPMetricExporter(url(cfg.metrics))
      : new (await import("@opentelemetry/exporter-metrics-otlp-proto")).OTLPMetricExporter(url(cfg.metrics));
  return { ...(spans ? { spans } : {}), ...(metrics ? { metrics } : {}) };
}

/** an exporter whose failures are told (the SDK's own go to a diag logger nobody installs) */
function told<T extends { export(items: never, done: (r: ExportResult) => void): void }>(exporter: T, what: string, url: string, say: (m: string) => void): T {
  const send = exporter.export.bind(exporter);
  exporter.export = ((items: never, done: (r: ExportResult) => void) =>
    send(items, (r) => {
      if (r.code !== ExportResultCode.SUCCESS) say(`OpenTelemetry ${what} were not exported to ${url}: ${r.error?.message ?? "export failed"}`);
      done(r);
    })) as T["export"];
  return exporter;
}

export async function otelTap(cfg: OtelConfig, opts: OtelTapOptions): Promise<Tap> {
  const { spans: spanExporter, metrics: metricExporter } = await exporters(cfg);
  // one debug line per process however many exports fail: a collector that is down is one fact
  let said = false;
  const say = (message: string) => {
    if (said) return;
    said = true;
    opts.debug(message);
  };
  // service.name mcpx unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise (the env detector reads both)
  const resource = resourceFromAttributes({ "service.name": "mcpx", "service.version": VERSION }).merge(detectResources({ detectors: [envDetector] }));
  const tracing = spanExporter
    ? new TracerProvider({
        resource,
        spanProcessors: [new BatchSpanProcessor({ exporter: told(spanExporter, "spans", cfg.traces!.url, say), scheduledDelayMillis: cfg.spanDelayMs })],
      })
    : undefined;
  const metering = metricExporter
    ? new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter: told(metricExporter, "metrics", cfg.metrics!.url, say),
            exportIntervalMillis: cfg.metricIntervalMs,
            exportTimeoutMillis: Math.min(cfg.metricIntervalMs, 30_000),
          }),
        ],
      })
    : undefined;
  const tracer = tracing?.getTracer("mcpx", VERSION);
  const duration = metering?.getMeter("mcpx", VERSION).createHistogram("mcp.client.operation.duration", {
    unit: "s",
    description: "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
  });
  const propagator = new W3CTraceContextPropagator();
  // each run's span as a context, while the run goes on: its calls and hooks are its children
  const runs = new Map<string, Context>();
  const parentOf = (runId: string | undefined, carrier?: TraceCarrier): Context =>
    (runId !== undefined ? runs.get(runId) : undefined) ?? (carrier ? propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter) : ROOT_CONTEXT);
  const finish = (span: { setAttributes(a: OtelAttributes): unknown; setStatus(s: { code: SpanStatusCode; message?: string }): unknown }, out: SpanOutcome) => {
    span.setAttributes(out.attributes);
    if (out.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: out.error });
  };

  return {
    run(start: RunStart) {
      if (!tracer) return { end() {} };
      const shape = runSpan(start);
      const span = tracer.startSpan(shape.name, { kind: KINDS[shape.kind], attributes: shape.attributes }, parentOf(undefined, start.parent));
      runs.set(start.runId, trace.setSpan(ROOT_CONTEXT, span));
      return {
        end(info) {
          runs.delete(start.runId);
          finish(span, runOutcome(info));
          span.end();
        },
      };
    },
    call(start: CallStart) {
      const t0 = performance.now();
      const shape = callSpan(start);
      const span = tracer?.startSpan(shape.name, { kind: KINDS[shape.kind], attributes: shape.attributes }, parentOf(start.runId));
      return {
        end(info: CallEnd) {
          duration?.record((performance.now() - t0) / 1000, durationAttributes(start, info));
          if (!span) return;
          finish(span, callOutcome(info));
          span.end();
        },
        traceMeta() {
          if (!span) return undefined;
          const carrier: Record<string, string> = {};
          propagator.inject(trace.setSpan(apiContext.active(), span), carrier, defaultTextMapSetter);
          return carrier.traceparent ? (carrier as unknown as TraceCarrier) : undefined;
        },
      };
    },
    hook(h: HookRecord) {
      if (!tracer) return;
      const shape = hookSpan(h);
      const end = Date.now();
      const span = tracer.startSpan(shape.name, { kind: KINDS[shape.kind], attributes: shape.attributes, startTime: end - h.durationMs }, parentOf(h.runId));
      finish(span, { attributes: {}, ...(shape.error !== undefined ? { error: shape.error } : {}) });
      span.end(end);
    },
    async close() {
      const flushed = Promise.all([tracing?.shutdown(), metering?.shutdown()]).then(
        () => "done" as const,
        (e: Error) => e,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), FLUSH_TIMEOUT_MS);
      });
      const outcome = await Promise.race([flushed, late]);
      clearTimeout(timer);
      if (outcome === "late") say(`OpenTelemetry export did not finish within ${FLUSH_TIMEOUT_MS}ms of the end; what was left is dropped`);
      else if (outcome instanceof Error) say(`OpenTelemetry export failed at the end: ${outcome.message}`);
    },
  };
}
