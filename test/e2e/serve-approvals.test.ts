// A call that needs a person's yes pauses the run: mcpx_exec on `mcpx serve`, asked by a client
// without elicitation, with an `ask` hook on fake.add. The run pauses (structuredContent.pending),
// the user decides with mcpx approve / mcpx reject, and mcpx_exec {"resume": ID} replays the run:
// the calls before the pause come from its log (the fixture's record shows they reached the server
// once), the decided call is sent once or refused. Each test has its own serve and record file.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MCPX } from "./harness.ts";
import { hookSandbox, recordedCalls, recordPath, say } from "./hooks-support.ts";
import { expectExit, mcpx, until } from "./support.ts";
import { running } from "../../lib/process/proc-table.ts";

const sb = hookSandbox();
const ASK = { name: "confirm", on: "call", phase: "before", when: { tool: "add" }, run: say({ ask: "really add?" }), effect: "ask" };
const SOURCE = 'const a = await fake.echo({ message: "A" }); const b = await fake.add({ a: 1, b: 2 }); return { a, b };';

interface Served {
  exec(args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
  /** the serve process */
  pid: number;
}

/** a serve whose client declares no elicitation: an `ask` has nobody to ask */
async function withServe<T>(env: Record<string, string>, fn: (s: Served) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({
    command: MCPX,
    args: ["serve"],
    cwd: sb.dir,
    env: { ...sb.env, MCPX_HOOKS: JSON.stringify([ASK]), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "agent", version: "0" }, { capabilities: {} });
  await client.connect(transport);
  const s: Served = {
    exec: async (args) => (await client.callTool({ name: "mcpx_exec", arguments: args })) as CallToolResult,
    close: () => client.close(),
    pid: transport.pid!,
  };
  try {
    return await fn(s);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nmcpx serve stderr:\n${stderr}`);
  } finally {
    await s.close();
  }
}

/** a serve, a Deno run or two and a few CLI commands in one test */
const SLOW = 60_000;

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;

interface Pending {
  id: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  question: string;
}

/** the run paused: its pending approval, and neither call was refused outright */
async function paused(s: Served, record: string, args: Record<string, unknown> = { source: SOURCE }): Promise<Pending> {
  const r = await s.exec(args);
  expect(r.isError).toBeFalsy();
  const pending = (r.structuredContent as { pending?: Pending }).pending!;
  expect(pending).toMatchObject({ server: "fake", tool: "add", arguments: { a: 1, b: 2 } });
  expect(pending.question).toContain("really add?");
  expect(textOf(r)).toContain(`mcpx approve ${pending.id}`);
  // A went out once; B never reached the server
  expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
  return pending;
}

describe.concurrent("a run an ask hook pauses", () => {
  test(
    "pauses instead of failing, is listed by mcpx approvals, and once approved resumes with A from the log and B sent once",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const pending = await paused(s, record);
        const listed = await mcpx(sb, ["approvals", "--json"]);
        expectExit(listed, 0);
        expect((JSON.parse(listed.stdout) as Pending[]).find((p) => p.id === pending.id)).toMatchObject({ tool: "add", expired: false });
        const text = await mcpx(sb, ["approvals"]);
        expect(text.stdout).toContain(`${pending.id}\tfake.add\tpending`);
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const resumed = await s.exec({ resume: pending.id });
        expect(resumed.isError).toBeFalsy();
        const env = resumed.structuredContent as { ok: boolean; result: { a: unknown; b: { content: Array<{ text: string }> } } };
        expect(env.ok).toBe(true);
        expect(JSON.stringify(env.result.b)).toContain("3");
        expect(JSON.stringify(env.result.a)).toContain("A");
        // in total: A once (the resume answered it from the log), B once (the approved call)
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
        // used up: a second resume finds nothing
        const again = await s.exec({ resume: pending.id });
        expect(again.isError).toBe(true);
        expect(textOf(again)).toContain(`no pending approval ${pending.id}`);
      });
    },
    SLOW,
  );

  test(
    "calls made in parallel before the pause are each answered from the log on resume, in the order they were made",
    async () => {
      const record = recordPath(sb);
      const source =
        'const [x, y] = await Promise.all([fake.echo({ message: "X" }), fake.echo({ message: "Y" })]); ' +
        "const b = await fake.add({ a: 1, b: 2 }); return [x, y, b].map((r) => JSON.stringify(r));";
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const r = await s.exec({ source });
        const pending = (r.structuredContent as { pending: Pending }).pending;
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const resumed = await s.exec({ resume: pending.id });
        const result = (resumed.structuredContent as { result: string[] }).result;
        expect([result[0]!.includes("X"), result[1]!.includes("Y"), result[2]!.includes("3")]).toEqual([true, true, true]);
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "a call made in parallel after the paused one was sent once: the resume answers it from the log, never sends it again",
    async () => {
      const record = recordPath(sb);
      // add pauses while its ask hook runs; echo, made after it in the same turn, goes out meanwhile.
      // Before echo was logged at its own place, the resume sent it a second time (record: echo, add, echo)
      const source =
        'const [b, z] = await Promise.allSettled([fake.add({ a: 1, b: 2 }), fake.echo({ message: "Z" })]); ' +
        "if (b.status === 'rejected') throw b.reason; return [JSON.stringify(b.value), JSON.stringify(z.value)];";
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const r = await s.exec({ source });
        const pending = (r.structuredContent as { pending: Pending }).pending;
        expect(pending).toMatchObject({ tool: "add" });
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const resumed = await s.exec({ resume: pending.id });
        expect(resumed.isError).toBeFalsy();
        const result = (resumed.structuredContent as { result: string[] }).result;
        expect([result[0]!.includes("3"), result[1]!.includes("Z")]).toEqual([true, true]);
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "a call the paused run sent and ended without an answer to fails on resume with REPLAY_UNANSWERED and is not sent again",
    async () => {
      const record = recordPath(sb);
      // echo never answers: the run ends (add paused it) with echo on its way
      const source =
        'const p = fake.echo({ message: "slow" }).then(() => "answered", (e) => `${e.code}: ${e.message}`); ' +
        "await fake.add({ a: 1, b: 2 }); return await p;";
      await withServe({ FAKE_MCP_RECORD: record, FAKE_MCP_HANG_TOOL: "echo" }, async (s) => {
        const r = await s.exec({ source });
        const pending = (r.structuredContent as { pending: Pending }).pending;
        expect(pending).toMatchObject({ tool: "add" });
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const resumed = await s.exec({ resume: pending.id });
        expect(resumed.isError).toBeFalsy();
        expect((resumed.structuredContent as { result: string }).result).toStartWith("REPLAY_UNANSWERED: call 1 to fake.echo was sent by the paused run");
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "only the session that paused a run may resume it: another serve's resume is refused and leaves the approval unused",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (first) => {
        const pending = await paused(first, record);
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        await withServe({ FAKE_MCP_RECORD: record }, async (other) => {
          const stolen = await other.exec({ resume: pending.id });
          expect(stolen.isError).toBe(true);
          expect(textOf(stolen)).toContain(`mcpx_exec cannot resume ${pending.id}: another agent session paused that run`);
        });
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
        const resumed = await first.exec({ resume: pending.id });
        expect(resumed.isError).toBeFalsy();
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "an approval whose session has ended is the next session's to resume: an agent host that restarted mcpx serve carries on",
    async () => {
      const record = recordPath(sb);
      let first = 0;
      const pending = await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        first = s.pid;
        return paused(s, record);
      });
      // the first serve has gone (its client closed): wait until its process is reaped
      await until(() => !running(first), `mcpx serve ${first} did not end after its client closed`);
      expectExit(await mcpx(sb, ["approve", pending.id]), 0);
      await withServe({ FAKE_MCP_RECORD: record }, async (next) => {
        const resumed = await next.exec({ resume: pending.id });
        expect(resumed.isError).toBeFalsy();
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "once rejected, the resume gets the call refused with the reason, and B is never sent",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const pending = await paused(s, record);
        expectExit(await mcpx(sb, ["reject", pending.id, "--reason", "not today"]), 0);
        const resumed = await s.exec({ resume: pending.id });
        expect(resumed.isError).toBe(true);
        expect(textOf(resumed)).toContain("call to fake.add refused by the user: not today");
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
      });
    },
    SLOW,
  );

  test(
    "a resume with another source diverges from the log, with the call's place named, and sends nothing",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const pending = await paused(s, record);
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const changed = SOURCE.replace('message: "A"', 'message: "changed"');
        const resumed = await s.exec({ resume: pending.id, source: changed });
        expect(resumed.isError).toBe(true);
        expect(textOf(resumed)).toContain("the replay diverged at call 1");
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
      });
    },
    SLOW,
  );

  test(
    "an undecided approval cannot be resumed, and an expired one says it expired",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const pending = await paused(s, record);
        const early = await s.exec({ resume: pending.id });
        expect(early.isError).toBe(true);
        expect(textOf(early)).toContain(`nobody has decided it (the user runs mcpx approve ${pending.id}`);
        // the record's expiry moved into the past, as the passing of approvals.ttl would
        const dir = join(sb.env.XDG_STATE_HOME!, "mcpx", "approvals");
        const file = join(dir, readdirSync(dir).find((n) => n === `${pending.id}.json`)!);
        writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), expiresAt: new Date(0).toISOString() }));
        const late = await mcpx(sb, ["approve", pending.id]);
        expectExit(late, 2);
        expect(late.stderr).toContain(`approval ${pending.id} expired at 1970-01-01T00:00:00.000Z (approvals.ttl)`);
        const resumed = await s.exec({ resume: pending.id });
        expect(resumed.isError).toBe(true);
        expect(textOf(resumed)).toContain(`mcpx_exec cannot resume: approval ${pending.id} expired at 1970-01-01T00:00:00.000Z`);
        expect((await mcpx(sb, ["approvals"])).stdout).toContain(`${pending.id}\tfake.add\texpired`);
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
      });
    },
    SLOW,
  );

  test(
    "an ask after the call (onSuccess) still refuses where nobody can answer: pausing there would send the call twice",
    async () => {
      const record = recordPath(sb);
      const after = { ...ASK, name: "keep", phase: "onSuccess", run: say({ ask: "keep this sum?" }) };
      await withServe({ FAKE_MCP_RECORD: record, MCPX_HOOKS: JSON.stringify([after]) }, async (s) => {
        const r = await s.exec({ source: SOURCE });
        expect(r.isError).toBe(true);
        expect((r.structuredContent as { pending?: unknown } | undefined)?.pending).toBeUndefined();
        expect(textOf(r)).toContain("keep this sum? (asked, and nobody can answer here)");
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
      });
    },
    SLOW,
  );

  test(
    "mcpx_exec cannot decide an approval: a decision key is refused, and a refused resume leaves the approval unused",
    async () => {
      const record = recordPath(sb);
      await withServe({ FAKE_MCP_RECORD: record }, async (s) => {
        const pending = await paused(s, record);
        const r = await s.exec({ resume: pending.id, approve: true });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toContain("approve");
        // decided by the user, a resume that also sends a key mcpx_exec does not take is refused before it uses the approval
        expectExit(await mcpx(sb, ["approve", pending.id]), 0);
        const bad = await s.exec({ resume: pending.id, decision: "approve" });
        expect(bad.isError).toBe(true);
        expect(textOf(bad)).toContain("decision");
        const listed = JSON.parse((await mcpx(sb, ["approvals", "--json"])).stdout) as Array<Pending & { decision?: unknown }>;
        // the resumes were refused before they used the approval: it is still there, decided by the user alone
        expect(listed.find((p) => p.id === pending.id)).toMatchObject({ decision: { approved: true } });
        expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo"]);
      });
    },
    SLOW,
  );
});
