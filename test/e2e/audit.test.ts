// The audit log through the compiled binary: every run, upstream call and hook that ran leaves a
// record in $XDG_STATE_HOME/mcpx/audit/audit.jsonl (0600): shapes of the arguments and decisions,
// never a value unless audit.values is set, and never a secret even then; rotated by size; written
// by every door (the CLI, mcpx serve, the daemon's /v1/exec) and read back by mcpx audit, locally
// and from the daemon's GET /v1/audit behind its token.

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, sandbox, type Sandbox } from "./harness.ts";
import { expectExit, mcpx, serve, writeConfig } from "./support.ts";
import { execText, hookSandbox, say } from "./hooks-support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";

afterAll(stopDaemons);

/** the value no record may hold unless audit.values is on */
const VALUE = "s3cr3t-value";
/** the value under a secret-looking key: no record may ever hold it */
const KEY_VALUE = "k3y-value-9876";
/** a call whose arguments have nested objects, arrays and a key that names a secret */
const SNIPPET = `await fake.nested({ mode: "fast", target: { id: 7 }, items: [{ name: "${VALUE}", count: 2 }], apiKey: "${KEY_VALUE}" })`;
const REFUSE_ECHO = [{ name: "no-echo", on: "call", phase: "before", when: { tool: "echo" }, run: say({ refuse: "echo is not allowed" }), effect: "refuse" }];
const ADVISE = [{ name: "note-it", on: "call", phase: "before", run: say({ advise: "noted" }), effect: "advise" }];

type Rec = Record<string, unknown> & { kind: string };

const auditFile = (sb: Sandbox, name = "audit.jsonl") => join(sb.env.XDG_STATE_HOME!, "mcpx", "audit", name);
const records = (sb: Sandbox, name?: string): Rec[] =>
  readFileSync(auditFile(sb, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

describe.concurrent("the audit log", () => {
  test("a run leaves run, call and hook records with the arguments' shape and no value, in a 0600 file", async () => {
    const sb = hookSandbox();
    const r = await execText(sb, SNIPPET, { hooks: ADVISE });
    expectExit(r, 0);
    const text = readFileSync(auditFile(sb), "utf8");
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(KEY_VALUE);
    expect(statSync(auditFile(sb)).mode & 0o777).toBe(0o600);
    expect(statSync(join(sb.env.XDG_STATE_HOME!, "mcpx", "audit")).mode & 0o777).toBe(0o700);
    const recs = records(sb);
    const run = recs.find((x) => x.kind === "run")!;
    expect(run).toMatchObject({ door: "cli", caller: "user", runtime: "auto", ok: true, exitCode: 0 });
    const call = recs.find((x) => x.kind === "call")!;
    expect(call).toMatchObject({ runId: run.runId, door: "cli", caller: "user", server: "fake", tool: "nested", ok: true, isError: false });
    expect(call.args).toEqual({ mode: "string", target: { id: "number" }, items: [{ name: "string", count: "number" }], apiKey: "string" });
    expect(call.values).toBeUndefined();
    const hook = recs.find((x) => x.kind === "hook")!;
    expect(hook).toMatchObject({ runId: run.runId, door: "cli", point: "call", phase: "before", name: "note-it", action: "run", decision: "advise" });
    expect(hook).toMatchObject({ server: "fake", tool: "nested" });
  });

  test("with audit.values on, the values are written but a secret key's value never is", async () => {
    const sb = hookSandbox();
    expectExit(await execText(sb, SNIPPET, { env: { MCPX_AUDIT_VALUES: "true" } }), 0);
    const text = readFileSync(auditFile(sb), "utf8");
    expect(text).toContain(VALUE);
    expect(text).not.toContain(KEY_VALUE);
    const call = records(sb).find((x) => x.kind === "call")!;
    expect(call.values).toEqual({ mode: "fast", target: { id: 7 }, items: [{ name: VALUE, count: 2 }], apiKey: "[redacted]" });
  });

  test("mcpx audit --decision refuse lists the refused call; its filters and --json read the same records", async () => {
    const sb = hookSandbox();
    const r = await execText(sb, `try { await fake.echo({ message: "${VALUE}" }) } catch (e) { console.log("refused") }`, { hooks: REFUSE_ECHO });
    expectExit(r, 0);
    const refused = await mcpx(sb, ["audit", "--decision", "refuse"]);
    expectExit(refused, 0);
    const lines = refused.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const cols = lines[0]!.split("\t");
    expect(cols.slice(1, 2)).toEqual(["hook"]);
    expect(cols[4]).toBe("call.before no-echo fake.echo");
    expect(cols[5]).toBe("refuse");
    expect(cols[7]).toBe("echo is not allowed");
    const json = await mcpx(sb, ["audit", "--json", "--server", "fake", "--tool", "echo", "--since", "1h"]);
    const recs = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Rec);
    expect(recs.map((x) => x.kind)).toEqual(["hook", "call"]);
    expect(recs[1]).toMatchObject({ tool: "echo", ok: false, errorCode: "REFUSED", args: { message: "string" } });
    // the run has no server: --server keeps calls and hooks only; a time to come keeps nothing
    expect((await mcpx(sb, ["audit"])).stdout.split("\n").filter((l) => l.split("\t")[1] === "run")).toHaveLength(1);
    const none = await mcpx(sb, ["audit", "--since", "2999-01-01"]);
    expectExit(none, 0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("no audit record matches");
    expect(readFileSync(auditFile(sb), "utf8")).not.toContain(VALUE);
  });

  test("a bad filter value is a usage error naming the flag and what it accepts", async () => {
    const sb = sandbox();
    const bad = await mcpx(sb, ["audit", "--decision", "refused"]);
    expectExit(bad, 2);
    expect(bad.stderr).toContain("--decision");
    expect(bad.stderr).toContain("allow, advise, propose, apply, retry, ask, refuse, fail, skip");
    const since = await mcpx(sb, ["audit", "--since", "yesterday"]);
    expectExit(since, 2);
    expect(since.stderr).toContain("--since");
    expect(since.stderr).toContain("1h or 7d");
  });

  test("past audit.maxSize the log is rotated, and mcpx audit reads every file", async () => {
    const sb = hookSandbox();
    // with values on, one call of 0.6 MiB makes a record that long: the second passes 1 MiB
    const env = { MCPX_AUDIT_VALUES: "true", MCPX_AUDIT_MAX_SIZE: "1" };
    const snippet = 'const big = "x".repeat(600 * 1024); await fake.echo({ message: big }); await fake.echo({ message: big })';
    expectExit(await execText(sb, snippet, { env }), 0);
    expect(existsSync(auditFile(sb, "audit.1.jsonl"))).toBe(true);
    const all = [...records(sb, "audit.1.jsonl"), ...records(sb)];
    expect(all.filter((x) => x.kind === "call")).toHaveLength(2);
    expect(all.filter((x) => x.kind === "run")).toHaveLength(1);
    const read = await mcpx(sb, ["audit", "--json"]);
    expect(
      read.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as Rec).kind),
    ).toEqual(["call", "call", "run"]);
    expect(statSync(auditFile(sb)).mode & 0o777).toBe(0o600);
  });

  test("audit.enabled false writes nothing", async () => {
    const sb = hookSandbox();
    expectExit(await execText(sb, SNIPPET, { env: { MCPX_AUDIT_ENABLED: "false" } }), 0);
    expect(existsSync(auditFile(sb))).toBe(false);
  });

  test("a run through mcpx serve is the agent's, at the mcp door, and so is an mcpx_call", async () => {
    const sb = hookSandbox();
    const s = await serve(sb);
    try {
      await s.client.callTool({ name: "mcpx_exec", arguments: { source: SNIPPET } });
      await s.client.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: VALUE } } });
    } finally {
      await s.close();
    }
    const recs = records(sb);
    expect(recs.find((x) => x.kind === "run")).toMatchObject({ door: "mcp", caller: "agent", ok: true });
    const calls = recs.filter((x) => x.kind === "call");
    expect(calls.map((c) => [c.tool, c.door, c.caller])).toEqual([
      ["nested", "mcp", "agent"],
      ["echo", "mcp", "agent"],
    ]);
    expect(calls[1]!.runId).toBeUndefined();
    const text = readFileSync(auditFile(sb), "utf8");
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(KEY_VALUE);
  });
});

describe("the daemon's audit log", () => {
  const TOKEN = "audit-token-" + Math.random().toString(36).slice(2);

  test("a /v1/exec run is the user's at the http door; GET /v1/audit needs the token and answers what mcpx audit prints", async () => {
    const sb = sandbox();
    writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    const d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const ran = await d.fetch("/v1/exec", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ source: SNIPPET }),
    });
    const envelope = (await ran.json()) as { exitCode: number; runId: string };
    expect(envelope.exitCode).toBe(0);

    expect((await d.fetch("/v1/audit")).status).toBe(401);
    expect((await d.fetch("/v1/audit", { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    const res = await d.fetch("/v1/audit?tool=nested", { headers: auth });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { records: Rec[]; skipped: number };
    expect(reply.skipped).toBe(0);
    expect(reply.records).toHaveLength(1);
    expect(reply.records[0]).toMatchObject({ kind: "call", door: "http", caller: "user", tool: "nested", runId: envelope.runId });
    expect(JSON.stringify(reply)).not.toContain(VALUE);

    const bad = await d.fetch("/v1/audit?decision=nope&colour=red", { headers: auth });
    expect(bad.status).toBe(400);
    const said = ((await bad.json()) as { error: { message: string } }).error.message;
    expect(said).toContain("decision");
    expect(said).toContain("colour");

    const at = ["--daemon-address", d.address];
    const env = { MCPX_DAEMON_TOKEN: TOKEN };
    for (const flags of [[], ["--json"], ["--server", "fake", "--since", "1h"]]) {
      const local = await mcpx(sb, ["audit", ...flags]);
      const remote = await mcpx(sb, ["audit", "--remote", ...at, ...flags], { env });
      expectExit(remote, 0);
      expect(remote.stdout).toBe(local.stdout);
      expect(remote.stdout).toContain("nested");
    }
    const run = (await mcpx(sb, ["audit", "--json"])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Rec)
      .find((x) => x.kind === "run");
    expect(run).toMatchObject({ door: "http", caller: "user", exitCode: 0, runId: envelope.runId });
  });
});
