// The daemon serves pending approvals: GET /v1/approvals, POST /v1/approvals/{id}/approve and
// /reject, and `mcpx approvals|approve|reject --remote` through them, printing what the local
// commands print with the same exit codes. The daemon keeps its own state directory (its
// XDG_STATE_HOME is not the caller's), so a test proves it reads and decides its own store; the
// caller's local commands are pointed at the same directory (`shared`) where a test compares the
// two doors. Pending approvals are written with the store's own savePending; one test makes a real
// pause (mcpx serve, an `ask` hook, no elicitation) and decides it through the daemon. The tests run
// in order: the listing tests compare whole lists of one shared store.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { newApprovalId, savePending, type PendingApproval } from "../../lib/approvals/store.ts";
import type { Result } from "./harness.ts";
import { hookSandbox, recordedCalls, recordPath, say } from "./hooks-support.ts";
import { expectExit, mcpx, serve } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = hookSandbox();
/** the daemon's XDG_STATE_HOME; the caller's is the sandbox's own */
const DAEMON_STATE = join(sb.dir, "daemon-state");
const DAEMON_ENV = { XDG_STATE_HOME: DAEMON_STATE };
const APPROVALS = join(DAEMON_STATE, "mcpx", "approvals");
/** a caller whose local commands see the daemon's store */
const shared = { env: DAEMON_ENV };
/** small, so a 413 is cheap to provoke; every other body here stays far under it */
const MAX_BODY = 4096;
const FUTURE = "2099-01-01T00:00:00.000Z";
const PAST = "1970-01-01T00:00:00.000Z";

let d: Daemon;
afterAll(stopDaemons);
beforeAll(async () => {
  // the trust of the sandbox's .mcpx.json lives in the state directory too: the daemon's own must hold it
  expectExit(await mcpx(sb, ["trust", ".mcpx.json"], shared), 0);
  d = await startDaemon(sb, ["--daemon-max-body", String(MAX_BODY)], { env: DAEMON_ENV });
});

let made = 0;
/** a pending approval in the daemon's state directory, written by the store itself */
function pending(over: Partial<PendingApproval> = {}): PendingApproval {
  const record: PendingApproval = {
    id: newApprovalId(),
    // in the order made, so a listing's order is known
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, ++made)).toISOString(),
    expiresAt: FUTURE,
    server: "fake",
    tool: "add",
    arguments: { a: 1, b: 2 },
    question: "really add?",
    run: { source: "await fake.add({ a: 1, b: 2 })" },
    log: [],
    ...over,
  };
  savePending({ ...sb.env, ...DAEMON_ENV }, record);
  return record;
}

/** the record as the daemon's store holds it now */
const stored = (id: string): PendingApproval => JSON.parse(readFileSync(join(APPROVALS, `${id}.json`), "utf8")) as PendingApproval;

/** the same command locally (on the daemon's store) and with --remote (from a caller whose own store is elsewhere) */
async function both(argv: string[]): Promise<{ local: Result; remote: Result }> {
  const local = await mcpx(sb, argv, shared);
  const remote = await mcpx(sb, [argv[0]!, "--remote", ...argv.slice(1)]);
  return { local, remote };
}

function expectSame({ local, remote }: { local: Result; remote: Result }): void {
  expect({ code: remote.code, stdout: remote.stdout, stderr: remote.stderr }).toEqual({ code: local.code, stdout: local.stdout, stderr: local.stderr });
}

/** POST a raw body to a route on the daemon's socket: the status and the JSON answer */
async function post(path: string, body?: string): Promise<{ status: number; json: any }> {
  const res = await d.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body }) });
  return { status: res.status, json: await res.json() };
}

describe("GET /v1/approvals and mcpx approvals --remote", () => {
  test("GET /v1/approvals lists the daemon's state directory, the rows mcpx approvals --json prints there, without the run or its log", async () => {
    const p = pending();
    const res = await d.fetch("/v1/approvals");
    expect(res.status).toBe(200);
    const { approvals } = (await res.json()) as { approvals: Array<Record<string, unknown>> };
    const { run: _run, log: _log, ...row } = p;
    expect(approvals.find((a) => a.id === p.id)).toEqual({ ...row, expired: false });
    for (const a of approvals) expect(Object.keys(a).filter((k) => k === "run" || k === "log")).toEqual([]);
    const local = await mcpx(sb, ["approvals", "--json"], shared);
    expectExit(local, 0);
    expect(JSON.parse(local.stdout)).toEqual(approvals);
    // the caller's own state directory holds none: --remote shows the daemon's, not the caller's
    expect((await mcpx(sb, ["approvals"])).stdout).toBe("no run waits for an approval\n");
    const remote = await mcpx(sb, ["approvals", "--remote", "--json"]);
    expectExit(remote, 0);
    expect(JSON.parse(remote.stdout)).toEqual(approvals);
  });

  test("mcpx approvals --remote prints what mcpx approvals prints: rows and --json, expired and decided ones marked", async () => {
    const waiting = pending();
    const expired = pending({ expiresAt: PAST });
    const rejected = pending({ decision: { approved: false, reason: "no", at: FUTURE } });
    const rows = await both(["approvals"]);
    expectExit(rows.local, 0);
    expect(rows.local.stdout).toContain(`${waiting.id}\tfake.add\tpending\texpires ${FUTURE}\treally add?\n`);
    expect(rows.local.stdout).toContain(`${expired.id}\tfake.add\texpired\t`);
    expect(rows.local.stdout).toContain(`${rejected.id}\tfake.add\trejected\t`);
    expectSame(rows);
    const json = await both(["approvals", "--json"]);
    expectExit(json.local, 0);
    expectSame(json);
  });

  test("the same usage error for a stray argument, remotely as locally", async () => {
    const r = await both(["approvals", "extra"]);
    expectExit(r.local, 2);
    expect(r.local.stderr).toContain("takes no arguments (got extra)");
    expectSame(r);
  });
});

describe("deciding on the daemon", () => {
  test("POST /v1/approvals/ID/approve, with no body or {}, answers the decided row; the daemon's store holds the decision", async () => {
    const p = pending();
    const r = await post(`/v1/approvals/${p.id}/approve`);
    expect(r.status).toBe(200);
    expect(r.json.approval).toMatchObject({ id: p.id, server: "fake", tool: "add", expired: false, decision: { approved: true } });
    expect(r.json.approval.run).toBeUndefined();
    expect(stored(p.id).decision).toMatchObject({ approved: true });
    // the run and its log are kept for the resume
    expect(stored(p.id).run).toEqual(p.run);
    const q = pending();
    expect((await post(`/v1/approvals/${q.id}/approve`, "{}")).status).toBe(200);
    expect((await mcpx(sb, ["approvals"], shared)).stdout).toContain(`${q.id}\tfake.add\tapproved\t`);
  });

  test("mcpx approve ID --remote decides on the daemon's store and prints what mcpx approve ID prints", async () => {
    const p = pending();
    const remote = await mcpx(sb, ["approve", "--remote", p.id]);
    expectExit(remote, 0);
    expect(remote.stdout).toBe(`approved ${p.id}: fake.add; the agent resumes it with mcpx_exec {"resume": "${p.id}"}\n`);
    expect(stored(p.id).decision).toMatchObject({ approved: true });
    // deciding again is allowed until the resume uses it up: the local command on the same record
    const local = await mcpx(sb, ["approve", p.id], shared);
    expectSame({ local, remote });
  });

  test("mcpx reject ID --reason TEXT --remote keeps the reason, as locally; POST with {reason} does too", async () => {
    const p = pending();
    const remote = await mcpx(sb, ["reject", p.id, "--reason", "not on a Friday", "--remote"]);
    expectExit(remote, 0);
    expect(remote.stdout).toBe(`rejected ${p.id}: fake.add; the agent resumes it with mcpx_exec {"resume": "${p.id}"}\n`);
    expect(stored(p.id).decision).toMatchObject({ approved: false, reason: "not on a Friday" });
    const local = await mcpx(sb, ["reject", p.id, "--reason", "not on a Friday"], shared);
    expectSame({ local, remote });
    const q = pending();
    const r = await post(`/v1/approvals/${q.id}/reject`, JSON.stringify({ reason: "too big" }));
    expect(r.status).toBe(200);
    expect(r.json.approval.decision).toMatchObject({ approved: false, reason: "too big" });
    const bare = pending();
    expect((await post(`/v1/approvals/${bare.id}/reject`)).json.approval.decision).toEqual({ approved: false, at: expect.any(String) });
  });

  test("an unknown, an expired or a malformed id is exit 2 with the store's message, remotely as locally", async () => {
    const expired = pending({ expiresAt: PAST });
    const cases: Array<[string[], string]> = [
      [["approve", "000000000000"], "no pending approval 000000000000 (mcpx approvals lists them; a resumed one is used up)"],
      [["reject", "000000000000", "--reason", "x"], "no pending approval 000000000000"],
      [["approve", expired.id], `approval ${expired.id} expired at ${PAST} (approvals.ttl): run it again to ask again`],
      [["reject", expired.id], `approval ${expired.id} expired at ${PAST}`],
      [["approve", "XYZ"], 'approval id "XYZ" is not one: ids are 12 hex digits, as mcpx approvals lists them'],
      [["approve", "../approvals"], 'approval id "../approvals" is not one'],
      [["reject", ".."], 'approval id ".." is not one'],
    ];
    for (const [argv, message] of cases) {
      const r = await both(argv);
      expectExit(r.local, 2);
      expect(r.local.stderr).toContain(message);
      expect(r.local.stdout).toBe("");
      expectSame(r);
    }
    expect(stored(expired.id).decision).toBeUndefined();
  });

  test("over HTTP: unknown is 404 NO_APPROVAL, expired 410 APPROVAL_EXPIRED, malformed 400 BAD_APPROVAL_ID, each with the store's message", async () => {
    const expired = pending({ expiresAt: PAST });
    const unknown = await post("/v1/approvals/000000000000/approve");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toEqual({
      code: "NO_APPROVAL",
      message: "no pending approval 000000000000 (mcpx approvals lists them; a resumed one is used up)",
    });
    const late = await post(`/v1/approvals/${expired.id}/reject`, JSON.stringify({ reason: "late" }));
    expect(late.status).toBe(410);
    expect(late.json.error.code).toBe("APPROVAL_EXPIRED");
    expect(late.json.error.message).toBe(`approval ${expired.id} expired at ${PAST} (approvals.ttl): run it again to ask again`);
    const bad = await post("/v1/approvals/0123/approve");
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual({ code: "BAD_APPROVAL_ID", message: 'approval id "0123" is not one: ids are 12 hex digits, as mcpx approvals lists them' });
    expect(stored(expired.id).decision).toBeUndefined();
  });
});

describe("hostile requests decide nothing", () => {
  test("an unknown key is a 400 naming it and the keys accepted", async () => {
    const p = pending();
    const reject = await post(`/v1/approvals/${p.id}/reject`, JSON.stringify({ reason: "x", approved: true }));
    expect(reject.status).toBe(400);
    expect(reject.json.error.code).toBe("BAD_REQUEST");
    expect(reject.json.error.message).toBe('the body is not a rejection ({} or {reason}): approved: unknown key "approved": accepted keys are reason');
    expect(reject.json.error.issues).toEqual([{ path: "approved", message: 'unknown key "approved": accepted keys are reason' }]);
    const approve = await post(`/v1/approvals/${p.id}/approve`, JSON.stringify({ reason: "because" }));
    expect(approve.status).toBe(400);
    expect(approve.json.error.message).toBe(
      'the body is not an approval (approve takes no body, or {}; a reason goes with reject): reason: unknown key "reason": no key is accepted',
    );
    expect(stored(p.id).decision).toBeUndefined();
  });

  test("a reason that is not a string, a body that is not an object, or not JSON, is a 400", async () => {
    const p = pending();
    for (const [body, message] of [
      [JSON.stringify({ reason: 5 }), "reason: expected string, got 5"],
      [JSON.stringify({ reason: null }), "reason: expected string, got null"],
      [JSON.stringify({ reason: ["a"] }), "reason: expected string, got Array"],
      ["[]", "(body): expected Object, got Array"],
      ['"reject"', '(body): expected Object, got "reject"'],
    ] as const) {
      const r = await post(`/v1/approvals/${p.id}/reject`, body);
      expect({ body, status: r.status, code: r.json.error.code }).toEqual({ body, status: 400, code: "BAD_REQUEST" });
      expect(r.json.error.message).toContain(message);
    }
    const notJson = await post(`/v1/approvals/${p.id}/reject`, "{reason:");
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe("BAD_JSON");
    expect(stored(p.id).decision).toBeUndefined();
  });

  test("an id with ../ never leaves the approvals directory: escaped it is a 400, bare the router finds no route", async () => {
    // a record of the store's shape one level up, where a path built from the id would land
    const outside = join(APPROVALS, "..", "evil.json");
    const record = JSON.stringify({
      id: "evil",
      createdAt: PAST,
      expiresAt: FUTURE,
      server: "fake",
      tool: "add",
      arguments: {},
      question: "?",
      run: {},
      log: [],
    });
    writeFileSync(outside, record);
    for (const id of ["..%2Fevil", "..%2F..%2Fmcpx%2Fevil", "evil.json%00"]) {
      const r = await post(`/v1/approvals/${id}/approve`);
      expect({ id, status: r.status, code: r.json.error.code }).toEqual({ id, status: 400, code: "BAD_APPROVAL_ID" });
    }
    // fetch resolves dot segments before sending, as any HTTP client may: the path reaches no route
    const bare = await post("/v1/approvals/../evil/approve");
    expect({ status: bare.status, code: bare.json.error.code }).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(readFileSync(outside, "utf8")).toBe(record);
    expect(existsSync(join(APPROVALS, "evil.json"))).toBe(false);
  });

  test("a body over daemon.maxBody is a 413 naming the setting", async () => {
    const p = pending();
    const r = await post(`/v1/approvals/${p.id}/reject`, JSON.stringify({ reason: "x".repeat(MAX_BODY) }));
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("TOO_LARGE");
    expect(r.json.error.message).toContain(`larger than daemon.maxBody (${MAX_BODY} bytes)`);
    expect(stored(p.id).decision).toBeUndefined();
  });

  test("a decision is a POST and the list a GET: other methods are a 405 with Allow", async () => {
    const p = pending();
    const get = await d.fetch(`/v1/approvals/${p.id}/approve`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const list = await d.fetch("/v1/approvals", { method: "POST", body: "{}" });
    expect(list.status).toBe(405);
    expect(list.headers.get("allow")).toBe("GET");
    expect(stored(p.id).decision).toBeUndefined();
  });
});

describe("a real pause", () => {
  const ASK = { name: "confirm", on: "call", phase: "before", when: { tool: "add" }, run: say({ ask: "really add?" }), effect: "ask" };
  const SOURCE = 'const a = await fake.echo({ message: "A" }); const b = await fake.add({ a: 1, b: 2 }); return { a, b };';

  test("a run mcpx serve paused is listed by the daemon, approved with mcpx approve --remote, and resumes with the call sent once", async () => {
    const record = recordPath(sb);
    // serve writes to the daemon's state directory, as a serve and a daemon of one user on one machine share theirs
    const s = await serve(sb, { ...DAEMON_ENV, MCPX_HOOKS: JSON.stringify([ASK]), FAKE_MCP_RECORD: record });
    try {
      const exec = async (args: Record<string, unknown>) => (await s.client.callTool({ name: "mcpx_exec", arguments: args })) as CallToolResult;
      const paused = await exec({ source: SOURCE });
      const id = (paused.structuredContent as { pending: { id: string } }).pending.id;
      const listed = await mcpx(sb, ["approvals", "--remote"]);
      expect(listed.stdout).toContain(`${id}\tfake.add\tpending\t`);
      expect(listed.stdout).toContain("really add?");
      expectExit(await mcpx(sb, ["approve", id, "--remote"]), 0);
      const resumed = await exec({ resume: id });
      expect(resumed.isError).toBeFalsy();
      expect(JSON.stringify((resumed.structuredContent as { result: unknown }).result)).toContain("3");
      expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      // used up by the resume: the daemon no longer has it
      const again = await mcpx(sb, ["approve", id, "--remote"]);
      expectExit(again, 2);
      expect(again.stderr).toContain(`no pending approval ${id}`);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nmcpx serve stderr:\n${s.stderr()}`);
    } finally {
      await s.close();
    }
  }, 60_000);
});
