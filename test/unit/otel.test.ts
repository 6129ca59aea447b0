// The pure parts of the OpenTelemetry export: which standard variables turn what on
// (otel-config.ts), what a tap point becomes as a span or a measurement (otel-attributes.ts), and
// which caller trace contexts are taken (trace-carrier.ts). The export itself is tested end to end
// against a local OTLP receiver (test/e2e/otel.test.ts).

import { describe, expect, test } from "bun:test";
import { callErrorType, callOutcome, callSpan, durationAttributes, hookSpan, runOutcome, runSpan } from "../../lib/telemetry/otel-attributes.ts";
import { otelConfig } from "../../lib/telemetry/otel-config.ts";
import { carrierFromHeaders, carrierFromMeta, validTraceparent } from "../../lib/telemetry/trace-carrier.ts";
import type { CallStart, HookRecord } from "../../lib/telemetry/tap.ts";

const EP = "http://collector:4318";

describe("otelConfig: the standard variables", () => {
  test("nothing set: nothing is exported, and nothing is loaded", () => {
    expect(otelConfig({})).toBeUndefined();
    expect(otelConfig({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeUndefined();
  });

  test("the base endpoint gets each signal's path; http/protobuf is the default protocol", () => {
    expect(otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${EP}/` })).toMatchObject({
      traces: { url: `${EP}/v1/traces`, protocol: "http/protobuf" },
      metrics: { url: `${EP}/v1/metrics`, protocol: "http/protobuf" },
    });
  });

  test("a signal's own endpoint is used as it is, and alone turns only that signal on", () => {
    const cfg = otelConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1/custom" });
    expect(cfg?.traces).toEqual({ url: "http://t:1/custom", protocol: "http/protobuf" });
    expect(cfg?.metrics).toBeUndefined();
    expect(otelConfig({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:1/x" })?.traces).toBeUndefined();
  });

  test("a signal's protocol variable wins over the general one", () => {
    const cfg = otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf" });
    expect(cfg?.traces?.protocol).toBe("http/json");
    expect(cfg?.metrics?.protocol).toBe("http/protobuf");
  });

  test("OTEL_TRACES_EXPORTER=none turns traces off and leaves the metric; OTEL_METRICS_EXPORTER=none the other way", () => {
    const noTraces = otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_TRACES_EXPORTER: "none" });
    expect(noTraces?.traces).toBeUndefined();
    expect(noTraces?.metrics).toBeDefined();
    const noMetrics = otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_METRICS_EXPORTER: "none" });
    expect(noMetrics?.traces).toBeDefined();
    expect(noMetrics?.metrics).toBeUndefined();
  });

  test("OTEL_SDK_DISABLED=true turns everything off, whatever else is set", () => {
    expect(otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_SDK_DISABLED: "false" })?.traces).toBeDefined();
  });

  test("grpc is not exported and says so, rather than sending HTTP to a gRPC port", () => {
    const cfg = otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(cfg?.traces).toBeUndefined();
    expect(cfg?.notes.join("\n")).toContain("OTEL_EXPORTER_OTLP_PROTOCOL grpc");
  });

  test("an exporter other than otlp is named in a note; otlp beside it still exports", () => {
    const cfg = otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_TRACES_EXPORTER: "console,otlp" });
    expect(cfg?.traces).toBeDefined();
    expect(cfg?.notes).toEqual(["OTEL_TRACES_EXPORTER console: mcpx exports over OTLP only, so only otlp is used"]);
  });

  test("the span delay and the metric interval take the specification's defaults unless set to a positive number", () => {
    expect(otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP })).toMatchObject({ spanDelayMs: 5000, metricIntervalMs: 60000 });
    expect(otelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: EP, OTEL_BSP_SCHEDULE_DELAY: "50", OTEL_METRIC_EXPORT_INTERVAL: "x" })).toMatchObject({
      spanDelayMs: 50,
      metricIntervalMs: 60000,
    });
  });
});

const CALL: CallStart = { runId: "r1", server: "fake", tool: "echo", args: { message: "secret" } };

describe("what a tap point becomes", () => {
  test("a call is a CLIENT span `tools/call {tool}` with the MCP conventions' attributes and never its arguments", () => {
    const s = callSpan(CALL);
    expect(s).toEqual({
      name: "tools/call echo",
      kind: "CLIENT",
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "mcpx.server.name": "fake",
        "mcpx.run.id": "r1",
      },
    });
    expect(JSON.stringify(s)).not.toContain("secret");
  });

  test("error.type: tool_error for isError (a JSON-RPC success), mcpx's code for any other failure, none for success", () => {
    expect(callErrorType({ ok: true, durationMs: 1, isError: false })).toBeUndefined();
    expect(callErrorType({ ok: false, durationMs: 1, isError: true, errorCode: "TOOL_ERROR" })).toBe("tool_error");
    expect(callErrorType({ ok: false, durationMs: 1, isError: false, errorCode: "CALL_REFUSED" })).toBe("CALL_REFUSED");
    expect(callOutcome({ ok: false, durationMs: 1, isError: true })).toEqual({ attributes: { "error.type": "tool_error" }, error: "tool_error" });
  });

  test("the duration metric's attributes are the low-cardinality ones: no run id", () => {
    expect(durationAttributes(CALL, { ok: false, durationMs: 1, isError: true })).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "mcpx.server.name": "fake",
      "error.type": "tool_error",
    });
  });

  test("a run is INTERNAL from the CLI and SERVER through a door; a non-zero exit is an error typed by its code", () => {
    const start = { runId: "r1", door: "cli" as const, caller: "user" as const, runtime: "auto" };
    expect(runSpan(start).kind).toBe("INTERNAL");
    expect(runSpan({ ...start, door: "http" }).kind).toBe("SERVER");
    expect(runSpan(start).attributes).toEqual({ "mcpx.run.id": "r1", "mcpx.run.door": "cli", "mcpx.run.caller": "user", "mcpx.run.runtime": "auto" });
    expect(runOutcome({ ok: true, exitCode: 0, durationMs: 3 })).toEqual({ attributes: { "process.exit.code": 0 } });
    expect(runOutcome({ ok: false, exitCode: 4, durationMs: 3 })).toMatchObject({ attributes: { "process.exit.code": 4, "error.type": "4" } });
  });

  const HOOK: HookRecord = { runId: "r1", point: "call", phase: "before", name: "guard", action: "run", effect: "refuse", decision: "refuse", durationMs: 2 };

  test("a hook is `mcpx.hook {point}.{phase}` with its name, effect, decision and dropped keys as attributes", () => {
    const s = hookSpan({ ...HOOK, dropped: ["apply (above advise)"], server: "fake", tool: "echo", reason: "no" });
    expect(s.name).toBe("mcpx.hook call.before");
    expect(s.attributes).toMatchObject({
      "mcpx.hook.name": "guard",
      "mcpx.hook.point": "call",
      "mcpx.hook.phase": "before",
      "mcpx.hook.effect": "refuse",
      "mcpx.hook.decision": "refuse",
      "mcpx.hook.dropped": ["apply (above advise)"],
      "gen_ai.tool.name": "echo",
    });
    // a refusal is the hook doing its job, not an error
    expect(s.error).toBeUndefined();
  });

  test("a hook that failed is an error of type hook_failed, without the hook's own words", () => {
    const s = hookSpan({ ...HOOK, decision: "fail", failed: "exit 1: token=abc" });
    expect(s.attributes["error.type"]).toBe("hook_failed");
    expect(s.error).toBe("hook_failed");
    expect(JSON.stringify(s)).not.toContain("token=abc");
    // failed closed: the decision is refuse, and it still failed
    expect(hookSpan({ ...HOOK, failed: "timeout" }).attributes["error.type"]).toBe("hook_failed");
  });
});

describe("a caller's trace context", () => {
  const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  test("a W3C traceparent is taken from _meta, with its tracestate", () => {
    expect(carrierFromMeta({ traceparent: TP, tracestate: "k=v", progressToken: 1 })).toEqual({ traceparent: TP, tracestate: "k=v" });
    expect(carrierFromMeta({ traceparent: TP })).toEqual({ traceparent: TP });
  });

  test("anything that is not a valid traceparent is left out, and the run starts its own trace", () => {
    for (const bad of [
      undefined,
      42,
      "",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
      `${TP}-extra`,
    ])
      expect(validTraceparent(bad)).toBe(false);
    expect(validTraceparent(`01-${TP.slice(3)}-future`)).toBe(true);
    expect(carrierFromMeta(null)).toBeUndefined();
    expect(carrierFromMeta({ traceparent: "nope" })).toBeUndefined();
  });

  test("the traceparent and tracestate headers of a request", () => {
    expect(carrierFromHeaders(new Headers({ traceparent: TP, tracestate: "a=b" }))).toEqual({ traceparent: TP, tracestate: "a=b" });
    expect(carrierFromHeaders(new Headers())).toBeUndefined();
  });
});
