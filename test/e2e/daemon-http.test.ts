// The daemon's /v1 surface over its unix socket: every route in the one table answers, unknown routes
// and wrong methods are refused, /v1/exec streams frames in order (or answers one envelope), bad and
// oversized bodies get clear 400s and 413s, and the settings and hooks rows name their origins.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkFrameOrder } from "../../lib/exec/frame-order.ts";
import type { Frame as ProductFrame } from "../../lib/exec/frames.ts";
import { ROUTES } from "../../lib/daemon/routes.ts";
import { SETTINGS } from "../../lib/settings/registry.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { say } from "./hooks-support.ts";
import { expectExit, fileExists, mcpx, scriptAwaits, writeConfig } from "./support.ts";
import { defaultSocket, execEnvelope, execFrames, readLines, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
const CONFIG = writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  exec: { timeout: "45s" },
  hooks: [
    { name: "daemon-advice", on: "script", phase: "before", run: say({ advise: "hello from the daemon's config" }) },
    { name: "watch-scripts", on: "script", phase: "observe", run: ["sh", "-c", "cat > /dev/null"] },
  ],
});
/** small, so a 413 is cheap to provoke; every test body below stays far under it */
const MAX_BODY = 4096;
const TOKEN = "not-for-your-eyes-1234";
let d: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  // up to 13 concurrent /v1/exec tests, past the default daemon.maxRuns (8): that bound is tested in daemon-limits.test.ts
  d = await startDaemon(sb, ["--daemon-max-body", String(MAX_BODY)], { env: { MCPX_DAEMON_TOKEN: TOKEN, MCPX_DAEMON_MAX_RUNS: "32" } });
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  d.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("the daemon listens where it says", () => {
  test("by default on its config chain's socket in $XDG_RUNTIME_DIR/mcpx (a project's: d-HASH.sock), a 0600 socket in a 0700 directory", () => {
    expect(d.address).toBe(defaultSocket(sb));
    expect(d.address).toMatch(new RegExp(`^${sb.env.XDG_RUNTIME_DIR}/mcpx/d-[0-9a-f]{10}\\.sock$`));
    expect(statSync(d.address).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(d.address)).mode & 0o777).toBe(0o700);
  });

  test("GET /v1/health answers ok, version, pid, uptime, runs, the last event seq, its directory and config chain", async () => {
    const res = await d.fetch("/v1/health");
    expect(res.status).toBe(200);
    const h = (await res.json()) as Record<string, any>;
    expect(h.ok).toBe(true);
    expect(h.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(h.pid).toBe(d.proc.pid);
    expect(h.uptimeMs).toBeGreaterThan(0);
    expect(h.runs).toEqual({ active: expect.any(Number), total: expect.any(Number) });
    expect({ draining: h.draining, drainGraceMs: h.drainGraceMs }).toEqual({ draining: false, drainGraceMs: 30_000 });
    expect(typeof h.events.lastSeq).toBe("number");
    expect(h.cwd).toBe(sb.dir);
    expect(h.config).toEqual([CONFIG]);
  });
});

describe.concurrent("routes", () => {
  /** one real request per route and method in the table; a route without one fails the first test */
  const SAMPLES: Record<string, () => Promise<Response>> = {
    "GET /v1/health": () => d.fetch("/v1/health"),
    // 200 or 503 by the servers' state (test/e2e/daemon-health.test.ts): either is the handler's
    "GET /v1/health/ready": () => d.fetch("/v1/health/ready"),
    "POST /v1/exec": () => post("/v1/exec", JSON.stringify({ source: "export default () => 1" })),
    "POST /v1/call": () => post("/v1/call", JSON.stringify({ server: "fake", tool: "echo", args: { message: "hi" } })),
    "POST /v1/resource": () => post("/v1/resource", JSON.stringify({ server: "fake" })),
    "POST /v1/prompt": () => post("/v1/prompt", JSON.stringify({ server: "fake" })),
    "GET /v1/tools": () => d.fetch("/v1/tools?list=none"),
    "GET /v1/settings": () => d.fetch("/v1/settings"),
    "GET /v1/settings/hooks": () => d.fetch("/v1/settings/hooks"),
    "GET /v1/settings/{path}": () => d.fetch("/v1/settings/exec.timeout"),
    // no approval waits on this daemon: the handlers answer 404 NO_APPROVAL, not the router's NOT_FOUND
    "GET /v1/approvals": () => d.fetch("/v1/approvals"),
    // no run made it: the handler answers 404 NO_ARTIFACT (daemon-artifacts.test.ts serves real ones)
    "GET /v1/artifacts/{id}": () => d.fetch("/v1/artifacts/01234567-89ab-4cde-8f01-23456789abcd.1"),
    "GET /v1/audit": () => d.fetch("/v1/audit?since=1h"),
    "POST /v1/approvals/{id}/approve": () => post("/v1/approvals/0123456789ab/approve", "{}"),
    "POST /v1/approvals/{id}/reject": () => post("/v1/approvals/0123456789ab/reject", JSON.stringify({ reason: "route test" })),
    "GET /v1/events": async () => {
      const abort = new AbortController();
      const res = await d.fetch("/v1/events?since=0", { signal: abort.signal });
      await readLines(res, () => true, abort);
      return res;
    },
    "POST /mcp": () =>
      post(
        "/mcp",
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "route-test", version: "1" } },
        }),
        { accept: "application/json, text/event-stream" },
      ),
    "GET /mcp": () =>
      d
        .fetch("/mcp", { headers: { accept: "text/event-stream" }, signal: AbortSignal.timeout(3000) })
        .catch((e) => new Response(null, { status: 599, statusText: String(e) })),
    "DELETE /mcp": () => d.fetch("/mcp", { method: "DELETE" }),
  };

  test("every route in the table has a sample request here", () => {
    const keys = ROUTES.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`));
    expect(keys.filter((k) => !(k in SAMPLES))).toEqual([]);
  });

  for (const route of ROUTES) {
    for (const method of route.methods) {
      test(`${method} ${route.path} is alive: the router reaches its handler`, async () => {
        const res = await SAMPLES[`${method} ${route.path}`]!();
        const body = res.headers.get("content-type")?.includes("application/json") ? ((await res.json()) as { error?: { code?: string } }) : {};
        // the router's own refusals; anything else (NOT_YET from the /mcp mount point included) came from the handler
        expect({ status: res.status, code: body.error?.code }).not.toEqual({ status: 404, code: "NOT_FOUND" });
        expect({ status: res.status, code: body.error?.code }).not.toEqual({ status: 405, code: "METHOD_NOT_ALLOWED" });
      });
    }
  }

  test("an unknown route is a 404 naming the routes that exist", async () => {
    const res = await d.fetch("/v1/nope");
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("NOT_FOUND");
    expect(body.error.message).toContain("POST /v1/exec");
  });

  test("a wrong method is a 405 with Allow", async () => {
    const res = await d.fetch("/v1/exec");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("GET /v1/exec is not served: use POST");
  });

  test("there is no hook-registration route: POST to the hooks list is refused", async () => {
    const res = await post("/v1/settings/hooks", JSON.stringify({ on: "script", phase: "before", run: ["true"] }));
    expect(res.status).toBe(405);
  });
});

const BODY_SCRIPT = [
  'log("a log line")',
  "emit({ step: 1 })",
  'console.error("to stderr")',
  'console.log(await fake.echo({ message: "via the shared pool" }))',
  "export default () => ({ done: true })",
].join("\n");

describe.concurrent("POST /v1/exec", () => {
  test("with Accept: application/x-ndjson it streams every frame in the order of design §3", async () => {
    const frames = await execFrames(d, { source: BODY_SCRIPT, script: { before: ['console.log("[before]")'], suffix: ['console.log("[suffix]")'] } });
    expect(checkFrameOrder(frames as unknown as ProductFrame[])).toEqual([]);
    const types = frames.map((f) => f.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("end");
    for (const t of ["hook", "log", "emit", "stderr", "call", "stdout", "result"]) expect(types).toContain(t);
    expect(frames.find((f) => f.type === "hook")).toMatchObject({
      on: "script",
      phase: "before",
      name: "daemon-advice",
      advice: ["hello from the daemon's config"],
    });
    expect(
      frames
        .filter((f) => f.type === "stdout")
        .map((f) => f.data)
        .join(""),
    ).toBe("[before]\nvia the shared pool\n[suffix]\n");
    expect(frames.find((f) => f.type === "result")!.value).toEqual({ done: true });
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
  });

  test("frames are flushed as they happen, not at the end of the run", async () => {
    // the run cannot end before the client has read "early": the client writes a file when that frame
    // arrives, and the script waits for the file before it goes on. A buffered answer would hold
    // "early" back until the end, so the script would give up at its deadline and fail the run.
    const heard = join(sb.dir, `heard-early-${process.pid}`);
    const source = ['console.log("early");', scriptAwaits(fileExists(heard), "the client read early"), 'console.log("late");'].join("\n");
    const res = await post("/v1/exec", JSON.stringify({ source }), { accept: "application/x-ndjson" });
    expect(res.headers.get("content-type")).toStartWith("application/x-ndjson");
    const stdout: string[] = [];
    let last: { type: string; exitCode?: number } | undefined;
    await readLines(res, (line) => {
      const f = JSON.parse(line);
      if (f.type === "stdout") stdout.push(f.data);
      if (f.data === "early\n") writeFileSync(heard, "");
      last = f;
    });
    expect(stdout).toEqual(["early\n", "late\n"]);
    expect(last).toMatchObject({ type: "end", exitCode: 0 });
  });

  test("without NDJSON it answers one envelope after the run", async () => {
    const env = await execEnvelope(d, { source: BODY_SCRIPT });
    expect(env).toMatchObject({ ok: true, exitCode: 0, result: { done: true }, stdout: "via the shared pool\n", stderr: "to stderr\n", error: null });
    expect(env.calls).toEqual([expect.objectContaining({ server: "fake", tool: "echo", ok: true })]);
    expect(env.runId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("output in the body chooses the answer, over the Accept header: stream, json, text", async () => {
    const source = 'console.log("out"); console.error("err")';
    const streamed = await post("/v1/exec", JSON.stringify({ source, output: "stream" }));
    expect(streamed.headers.get("content-type")).toStartWith("application/x-ndjson");
    const frames = (await streamed.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(frames[0]!.type).toBe("start");
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });

    const enveloped = await post("/v1/exec", JSON.stringify({ source, output: "json" }), { accept: "application/x-ndjson" });
    expect(enveloped.headers.get("content-type")).toStartWith("application/json");
    expect(await enveloped.json()).toMatchObject({ ok: true, stdout: "out\n", stderr: "err\n" });

    const text = await post("/v1/exec", JSON.stringify({ source, output: "text" }));
    expect(text.headers.get("content-type")).toStartWith("text/plain");
    expect(text.headers.get("x-mcpx-exit-code")).toBe("0");
    expect(text.headers.get("x-mcpx-run-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await text.text()).toBe("out\n");

    const failed = await post("/v1/exec", JSON.stringify({ source: 'console.log("partial"); process.exit(3)', output: "text" }));
    expect(failed.status).toBe(200);
    expect(failed.headers.get("x-mcpx-exit-code")).toBe("3");
    expect(await failed.text()).toBe("partial\n");
  });

  test("timeout takes a duration, as exec.timeout does (timeoutMs the same in milliseconds); the two must agree", async () => {
    const env = await execEnvelope(d, { source: 'console.log("started"); await new Promise(() => setInterval(() => {}, 1000))', timeout: "1.5s" });
    expect(env).toMatchObject({ ok: false, exitCode: 124, stdout: "started\n" });
    const bare = await post("/v1/exec", JSON.stringify({ source: "1", timeout: "30" }));
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { message: string } }).error.message).toContain('timeout must be a duration like "500ms"');
    const both = await post("/v1/exec", JSON.stringify({ source: "1", timeout: "1s", timeoutMs: 2000 }));
    expect(both.status).toBe(400);
    expect(((await both.json()) as { error: { message: string } }).error.message).toContain("timeout and timeoutMs disagree");
  });

  test("a failing run is still a 200 with the error and exit code in the envelope", async () => {
    const env = await execEnvelope(d, { source: 'throw new Error("kaputt")', script: { onError: ['console.log("[onError]")'] } });
    expect(env).toMatchObject({ ok: false, exitCode: 1, stdout: "[onError]\n", error: { message: "kaputt" } });
  });

  test("stdin is the ExecOptions text, and empty without it (never the daemon's)", async () => {
    const src = "export default async () => JSON.stringify(await new Response(process.stdin as any).text())";
    expect((await execEnvelope(d, { source: src, stdin: "piped text" })).result).toBe('"piped text"');
    expect((await execEnvelope(d, { source: src })).result).toBe('""');
  });

  test("a bad key, a wrong type and a bad value each get a 400 naming the key path and what is accepted", async () => {
    const res = await post("/v1/exec", JSON.stringify({ source: "1", bogus: 1, timeoutMs: "5s", runtime: "java", script: { befor: ["x"] } }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; issues: Array<{ path: string; message: string }> } };
    expect(body.error.code).toBe("BAD_REQUEST");
    const byPath = Object.fromEntries(body.error.issues.map((i) => [i.path, i.message]));
    expect(Object.keys(byPath).sort()).toEqual(["bogus", "runtime", "script.befor", "timeoutMs"]);
    expect(byPath.bogus).toContain("accepted keys are source, file,");
    expect(byPath["script.befor"]).toContain("accepted keys in script are before, prefix, onSuccess, onError, suffix");
    expect(byPath.timeoutMs).toBe('expected number, got "5s"');
    expect(byPath.runtime).toContain('"auto" or "bun" or "deno" or "node"');
    expect(body.error.message).toContain("bogus: unknown key");
  });

  test("neither source nor file is a 400 saying to give exactly one", async () => {
    const res = await post("/v1/exec", JSON.stringify({ args: [] }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("give exactly one of source or file");
  });

  test("invalid JSON, an empty body and a JSON array are 400s", async () => {
    const bad = await post("/v1/exec", '{"source": ');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "BAD_JSON",
      message: expect.stringContaining("not valid JSON"),
    });
    expect((await post("/v1/exec", "")).status).toBe(400);
    const arr = await post("/v1/exec", "[]");
    expect(arr.status).toBe(400);
    expect(((await arr.json()) as { error: { message: string } }).error.message).toContain("one JSON object");
  });

  test("a per-run hook that is not on the script or call point is a 400", async () => {
    const res = await post("/v1/exec", JSON.stringify({ source: "1", hooks: [{ on: "server.start", phase: "before", run: ["true"] }] }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('a per-run hook must be on "script" or "call"');
  });

  test("a body over daemon.maxBody is a 413, by Content-Length", async () => {
    const res = await post("/v1/exec", JSON.stringify({ source: `// ${"x".repeat(MAX_BODY)}` }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "TOO_LARGE",
      message: expect.stringContaining("daemon.maxBody (4096 bytes)"),
    });
  });

  test("a body over daemon.maxBody is a 413 also when it is chunked, with no Content-Length to trust", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 16) c.enqueue(chunk);
        else c.close();
      },
    });
    const res = await d.fetch("/v1/exec", { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe.concurrent("settings and hooks", () => {
  test("GET /v1/settings has one row per setting, with value, origin and what it shadowed", async () => {
    const rows = (await (await d.fetch("/v1/settings")).json()) as Array<Record<string, any>>;
    expect(rows.map((r) => r.path)).toEqual(SETTINGS.map((s) => s.path));
    const timeout = rows.find((r) => r.path === "exec.timeout")!;
    expect(timeout).toMatchObject({ value: 45000, origin: `file:${CONFIG}`, shadowed: [{ value: 0, origin: "default" }], env: "MCPX_EXEC_TIMEOUT" });
    expect(rows.find((r) => r.path === "daemon.maxBody")).toMatchObject({ value: MAX_BODY, origin: "flag:--daemon-max-body" });
  });

  test("GET /v1/settings/{path} is one row; a secret is shown as set, never by value", async () => {
    const row = (await (await d.fetch("/v1/settings/daemon.token")).json()) as Record<string, unknown>;
    expect(row).toMatchObject({ path: "daemon.token", origin: "env:MCPX_DAEMON_TOKEN", value: "(set; not shown)" });
    expect(JSON.stringify(await (await d.fetch("/v1/settings")).json())).not.toContain(TOKEN);
  });

  test("an unknown setting path is a 404 naming the accepted paths", async () => {
    const res = await d.fetch("/v1/settings/exec.timout");
    expect(res.status).toBe(404);
    const message = ((await res.json()) as { error: { message: string } }).error.message;
    expect(message).toContain("did you mean exec.timeout?");
    expect(message).toContain("script.before, script.prefix");
  });

  test("GET /v1/settings/hooks lists every hook in force with its origin, as `mcpx hooks list --json` does", async () => {
    const body = (await (await d.fetch("/v1/settings/hooks")).json()) as { hooks: Array<Record<string, string>> };
    expect(body.hooks).toEqual([
      { name: "daemon-advice", on: "script", phase: "before", action: "run", effect: "advise", failure: "open", origin: `${CONFIG} hooks[0]` },
      // the declared effect, as the CLI lists it (an observe hook's effective level is always off)
      { name: "watch-scripts", on: "script", phase: "observe", action: "run", effect: "advise", failure: "open", origin: `${CONFIG} hooks[1]` },
    ]);
    const cli = await mcpx(sb, ["hooks", "list", "--json"]);
    expectExit(cli, 0);
    expect(JSON.parse(cli.stdout).hooks).toEqual(body.hooks);
  });
});
