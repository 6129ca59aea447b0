// Whether OpenTelemetry is configured, read from the standard SDK variables and nothing else: a pure
// function of the environment, so the check costs a few property reads and imports no OpenTelemetry
// package (docs/decisions/0027). Only what mcpx exports is read here: OTLP over HTTP, traces and
// metrics. The exporters themselves read the rest (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION).

type OtlpProtocol = "http/protobuf" | "http/json";

/** one signal's export: where it goes and how it is encoded */
export interface OtlpTarget {
  url: string;
  protocol: OtlpProtocol;
}

export interface OtelConfig {
  /** traces, unless no endpoint is set or OTEL_TRACES_EXPORTER is none */
  traces?: OtlpTarget;
  /** the mcp.client.operation.duration metric, unless no endpoint is set or OTEL_METRICS_EXPORTER is none */
  metrics?: OtlpTarget;
  /** how long finished spans wait to be exported in a batch while a process runs (OTEL_BSP_SCHEDULE_DELAY, ms) */
  spanDelayMs: number;
  /** how often the metric is exported while a process runs (OTEL_METRIC_EXPORT_INTERVAL, ms); a CLI run exports at its end */
  metricIntervalMs: number;
  /** what was set that mcpx does not do (a gRPC protocol, a console exporter): said once as a warning */
  notes: string[];
}

/** the SDK specification's defaults: the metric export interval, the span batch delay */
const DEFAULT_METRIC_INTERVAL_MS = 60_000;
const DEFAULT_SPAN_DELAY_MS = 5_000;

const PROTOCOLS: readonly string[] = ["http/protobuf", "http/json"];

type Env = Readonly<Record<string, string | undefined>>;

/** what is exported, from the standard variables; undefined when nothing is (unset, none, or OTEL_SDK_DISABLED=true) */
export function otelConfig(env: Env): OtelConfig | undefined {
  const set = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  if (set("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const notes: string[] = [];
  const target = (signal: "traces" | "metrics"): OtlpTarget | undefined => {
    const upper = signal.toUpperCase();
    const exporters = (set(`OTEL_${upper}_EXPORTER`) ?? "otlp").split(",").map((e) => e.trim().toLowerCase());
    if (exporters.includes("none")) return undefined;
    const own = set(`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`);
    const base = set("OTEL_EXPORTER_OTLP_ENDPOINT");
    if (own === undefined && base === undefined) return undefined;
    const others = exporters.filter((e) => e !== "otlp");
    if (others.length > 0) notes.push(`OTEL_${upper}_EXPORTER ${others.join(",")}: mcpx exports over OTLP only, so only otlp is used`);
    if (!exporters.includes("otlp")) return undefined;
    // the signal's own endpoint is used as it is; the base one gets the signal's path (the SDK specification's rule)
    const url = own ?? `${base!.replace(/\/+$/, "")}/v1/${signal}`;
    const protocolVar = set(`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`) !== undefined ? `OTEL_EXPORTER_OTLP_${upper}_PROTOCOL` : "OTEL_EXPORTER_OTLP_PROTOCOL";
    const protocol = set(protocolVar) ?? "http/protobuf";
    if (!PROTOCOLS.includes(protocol)) {
      notes.push(`${protocolVar} ${protocol}: mcpx exports ${signal} over OTLP/HTTP only: use ${PROTOCOLS.join(" or ")} (${signal} are not exported)`);
      return undefined;
    }
    return { url, protocol: protocol as OtlpProtocol };
  };
  const traces = target("traces");
  const metrics = target("metrics");
  // a value that is not a positive number of milliseconds: the default, as the specification says
  const ms = (name: string, fallback: number) => {
    const n = Number(set(name));
    return Number.isFinite(n) && n > 0 ? n : fallback;
  };
  if (!traces && !metrics && notes.length === 0) return undefined;
  return {
    ...(traces ? { traces } : {}),
    ...(metrics ? { metrics } : {}),
    spanDelayMs: ms("OTEL_BSP_SCHEDULE_DELAY", DEFAULT_SPAN_DELAY_MS),
    metricIntervalMs: ms("OTEL_METRIC_EXPORT_INTERVAL", DEFAULT_METRIC_INTERVAL_MS),
    notes,
  };
}
