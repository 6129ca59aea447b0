// OpenTelemetry through the compiled binary: with the standard variables pointing at a local OTLP/HTTP
// receiver (otlp-receiver.ts, which decodes with the official OTLP definitions), a run exports a span
// for itself, one per upstream tools/call (the MCP request span) and one per hook, and the
// mcp.client.operation.duration metric; the trace continues upstream in the call's `params._meta`
// (the fake server records the traceparent it got) and from a caller of mcpx serve and /v1/exec.

import { afterAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { execText, hookSandbox, recordPath, say } from "./hooks-support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { otlpReceiver, type Receiver, type ReceivedSpan } from "./otlp-receiver.ts";
import { expectExit, serve } from "./support.ts";

afterAll(stopDaemons);

const receivers: Receiver[] = [];
afterAll(() => {
  for (const r of receivers) r.stop();
});

function receiver(): Receiver {
  const r = otlpReceiver();
  receivers.push(r);
  return r;
}

/** the variables that point mcpx at the receiver */
const otel = (r: Receiver, more: Record<string, string> = {}) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url, OTEL_SERVICE_NAME: "mcpx-e2e", ...more });

const ADVISE = [{ name: "note-it", on: "call", phase: "before", when: { tool: "echo" }, run: say({ advise: "noted" }), effect: "advise" }];
/** a hook whose `apply` key its effect (advise) may not honour: the key is dropped and reported */
const DROPS = [{ name: "over-reach", on: "call", phase: "before", when: { tool: "echo" }, run: say({ apply: { message: "x" } }), effect: "advise" }];

const SPAN_KIND = { internal: 1, server: 2, client: 3 };
const STATUS_ERROR = 2;

const one = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
};

/** a caller's W3C traceparent with fresh ids */
function callerTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

describe.concurrent("OpenTelemetry export", () => {
  for (const protocol of ["http/protobuf", "http/json"]) {
    test(`a run exports its span, an MCP request span per call and a hook span, over ${protocol}`, async () => {
      const r = receiver();
      const sb = hookSandbox();
      const record = recordPath(sb);
      const run = await execText(sb, `await fake.echo({ message: "hi" })`, { hooks: ADVISE, record, env: otel(r, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol }) });
      expectExit(run, 0);
      await r.until((x) => x.spans.length >= 3, "the run, call and hook spans");
      expect(r.contentTypes[0]).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");

      const runSpan = one(r.spans, "mcpx.run");
      expect(runSpan.kind).toBe(SPAN_KIND.internal);
      expect(runSpan.attributes).toMatchObject({ "mcpx.run.door": "cli", "mcpx.run.caller": "user", "mcpx.run.runtime": "auto", "process.exit.code": 0 });
      expect(runSpan.parentSpanId).toBeUndefined();
      expect(runSpan.resource["service.name"]).toBe("mcpx-e2e");

      const call = one(r.spans, "tools/call echo");
      expect(call.kind).toBe(SPAN_KIND.client);
      expect(call.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "mcpx.server.name": "fake" });
      expect(call.attributes["error.type"]).toBeUndefined();
      expect(call).toMatchObject({ traceId: runSpan.traceId, parentSpanId: runSpan.spanId });

      const hook = one(r.spans, "mcpx.hook call.before");
      expect(hook.attributes).toMatchObject({
        "mcpx.hook.name": "note-it",
        "mcpx.hook.point": "call",
        "mcpx.hook.phase": "before",
        "mcpx.hook.effect": "advise",
        "mcpx.hook.decision": "advise",
      });
      expect(hook).toMatchObject({ traceId: runSpan.traceId, parentSpanId: runSpan.spanId });

      // the server saw the call's own span as its parent: one trace from the run to the server
      const [seen] = recordedCalls(record, "echo");
      expect(seen!.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);
    });
  }

  test("an isError result is a JSON-RPC success that failed: error.type tool_error on the span and the metric", async () => {
    const r = receiver();
    const sb = hookSandbox();
    const run = await execText(sb, `try { await fake.fail({}) } catch { console.log("failed") }`, { env: otel(r) });
    expectExit(run, 0);
    await r.until((x) => x.spans.some((s) => s.name === "tools/call fail") && x.points.length > 0, "the fail call's span and its metric");
    const call = one(r.spans, "tools/call fail");
    expect(call.attributes["error.type"]).toBe("tool_error");
    expect(call.status.code).toBe(STATUS_ERROR);
    const point = r.points.find((p) => p.metric === "mcp.client.operation.duration")!;
    expect(point).toMatchObject({ unit: "s", count: 1 });
    expect(point.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "fail", "error.type": "tool_error" });
  });

  test("a hook whose key its effect does not allow exports the dropped key on its span", async () => {
    const r = receiver();
    const sb = hookSandbox();
    expectExit(await execText(sb, `await fake.echo({ message: "hi" })`, { hooks: DROPS, env: otel(r) }), 0);
    await r.until((x) => x.spans.some((s) => s.name === "mcpx.hook call.before"), "the hook span");
    const hook = one(r.spans, "mcpx.hook call.before");
    expect(hook.attributes["mcpx.hook.name"]).toBe("over-reach");
    expect(String((hook.attributes["mcpx.hook.dropped"] as string[])[0])).toContain("apply");
  });

  test("OTEL_TRACES_EXPORTER=none exports no span, and the metric still goes", async () => {
    const r = receiver();
    const sb = hookSandbox();
    const record = recordPath(sb);
    expectExit(await execText(sb, `await fake.echo({ message: "hi" })`, { record, env: otel(r, { OTEL_TRACES_EXPORTER: "none" }) }), 0);
    await r.until((x) => x.points.length > 0, "the metric");
    expect(r.spans).toEqual([]);
    // nothing traced, so nothing is carried upstream
    expect(recordedCalls(record, "echo")[0]!.traceparent).toBeUndefined();
  });

  test("without the variables nothing of OpenTelemetry is loaded (MCPX_TRACE shows no otel stage), and with them it is", async () => {
    const r = receiver();
    const sb = hookSandbox();
    const plain = await execText(sb, "1", { env: { MCPX_TRACE: "1" } });
    expectExit(plain, 0);
    expect(plain.stderr).toContain("mcpx trace");
    expect(plain.stderr).not.toContain("otel loaded");
    const traced = await execText(sb, "1", { env: { MCPX_TRACE: "1", ...otel(r) } });
    expectExit(traced, 0);
    expect(traced.stderr).toContain("otel loaded");
  });

  test("a collector that is not there neither fails nor holds up the run", async () => {
    const r = receiver();
    const url = r.url;
    r.stop();
    const sb = hookSandbox();
    const run = await execText(sb, `console.log((await fake.echo({ message: "hi" })))`, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, MCPX_LOGGING_LEVEL: "debug" },
    });
    expectExit(run, 0);
    expect(run.stdout).toContain("hi");
    // said once, at debug level
    expect(run.stderr.split("\n").filter((l) => l.includes("were not exported")).length).toBeLessThanOrEqual(1);
  });

  test("mcpx serve continues the trace its caller sends in _meta", async () => {
    const r = receiver();
    const sb = hookSandbox();
    const record = recordPath(sb);
    const caller = callerTraceparent();
    const served = await serve(sb, { ...otel(r), FAKE_MCP_RECORD: record });
    try {
      const result = await served.client.callTool({
        name: "mcpx_exec",
        arguments: { source: `await fake.echo({ message: "hi" })` },
        _meta: { traceparent: caller.traceparent },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await served.close();
    }
    await r.until((x) => x.spans.some((s) => s.name === "mcpx.run") && x.spans.some((s) => s.name === "tools/call echo"), "the served run's spans");
    const runSpan = one(r.spans, "mcpx.run");
    expect(runSpan).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, kind: SPAN_KIND.server });
    expect(runSpan.attributes).toMatchObject({ "mcpx.run.door": "mcp", "mcpx.run.caller": "agent" });
    expect(String(recordedCalls(record, "echo")[0]!.traceparent)).toContain(caller.traceId);
  });

  test("POST /v1/exec continues the trace of its traceparent header", async () => {
    const r = receiver();
    const sb = hookSandbox();
    const caller = callerTraceparent();
    const d = await startDaemon(sb, [], { env: otel(r, { OTEL_BSP_SCHEDULE_DELAY: "50" }) });
    const res = await d.fetch("/v1/exec", {
      method: "POST",
      headers: { "content-type": "application/json", traceparent: caller.traceparent },
      body: JSON.stringify({ source: `await fake.echo({ message: "hi" })`, output: "json" }),
    });
    expect(res.status).toBe(200);
    await r.until((x) => x.spans.some((s) => s.name === "mcpx.run"), "the daemon run's span");
    const runSpan = one(r.spans, "mcpx.run");
    expect(runSpan).toMatchObject({ traceId: caller.traceId, parentSpanId: caller.spanId, kind: SPAN_KIND.server });
    expect(runSpan.attributes["mcpx.run.door"]).toBe("http");
  });
});
