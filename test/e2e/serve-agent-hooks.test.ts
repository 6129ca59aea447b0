// `_Stop` and `_PostCompact` on `mcpx serve` (design §5, seed 000), through the binary with the
// SDK's Client: mcpx's own agent.stop / agent.compact hooks, and the fan-out to allowlisted upstream
// servers' tools of the same name (the fake server registers them only when FAKE_MCP_STOP_TEXT /
// FAKE_MCP_COMPACT_TEXT is set). Text goes back as a JSON array of {hook, server, text}, or empty.
// Each test starts its own `mcpx serve`, since hooks and knobs come from its environment.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { phasesOf, POINT_NAMES } from "../../lib/hooks/points.ts";
import { MCPX } from "./harness.ts";
import { hookSandbox, recordedCalls, recordedStarts, recordPath, say } from "./hooks-support.ts";

const sb = hookSandbox();

interface Served {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

async function serve(env: Record<string, string>, capabilities: Record<string, unknown> = {}): Promise<Served> {
  const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: { ...sb.env, ...env }, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "agent-host", version: "0" }, { capabilities });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** a served session for one test, closed after it */
async function withServe<T>(env: Record<string, string>, fn: (s: Served) => Promise<T>, capabilities: Record<string, unknown> = {}): Promise<T> {
  const s = await serve(env, capabilities);
  try {
    return await fn(s);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nmcpx serve stderr:\n${s.stderr()}`);
  } finally {
    await s.close();
  }
}

/** the text of a hook tool's answer; the result must never be isError */
async function hookText(s: Served, tool: "_Stop" | "_PostCompact"): Promise<string> {
  const r = (await s.client.callTool({ name: tool, arguments: {} })) as CallToolResult;
  expect(r.isError).toBeFalsy();
  expect(r.content).toHaveLength(1);
  return (r.content[0] as { text: string }).text;
}

const hooks = (list: unknown[]) => ({ MCPX_HOOKS: JSON.stringify(list) });

/** a test runner as a run hook: objects while PASSED does not exist in the sandbox */
function testRunner(passed: string) {
  return {
    name: "tests",
    on: "agent.stop",
    phase: "before",
    run: ["sh", "-c", `test -f ${passed} || echo '{"refuse":"tests are failing"}'`],
    effect: "refuse",
  };
}

describe.concurrent("_Stop", () => {
  test("returns the objection of a failing run hook, and empty text once it passes", async () => {
    const passed = join(sb.dir, `passed-${Math.random().toString(36).slice(2)}`);
    await withServe(hooks([testRunner(passed)]), async (s) => {
      expect(JSON.parse(await hookText(s, "_Stop"))).toEqual([{ hook: "tests", server: "mcpx", text: "tests are failing" }]);
      sb.write(passed.slice(sb.dir.length + 1), "");
      expect(await hookText(s, "_Stop")).toBe("");
    });
  });

  test("hears every hook: two objections come back together, in declaration order", async () => {
    const list = [
      { name: "todo", on: "agent.stop", phase: "before", run: say({ refuse: "2 todos open" }), effect: "refuse" },
      { name: "lint", on: "agent.stop", phase: "before", run: say({ refuse: "lint fails" }), effect: "refuse" },
    ];
    await withServe(hooks(list), async (s) => {
      expect(JSON.parse(await hookText(s, "_Stop"))).toEqual([
        { hook: "todo", server: "mcpx", text: "2 todos open" },
        { hook: "lint", server: "mcpx", text: "lint fails" },
      ]);
    });
  });

  test("a hook receives {point, phase, hook} and nothing else (the convention's input is {})", async () => {
    const saved = join(sb.dir, `stop-input-${Math.random().toString(36).slice(2)}.json`);
    await withServe(hooks([{ name: "look", on: "agent.stop", phase: "before", run: say({}, saved) }]), async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
      expect(JSON.parse(readFileSync(saved, "utf8"))).toEqual({ point: "agent.stop", phase: "before", hook: "look" });
    });
  });

  test("advice is not an objection: the text stays empty and the advice goes to stderr", async () => {
    await withServe(hooks([{ name: "note", on: "agent.stop", phase: "before", run: say({ advise: "remember to push" }) }]), async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
      expect(s.stderr()).toContain("remember to push");
    });
  });

  test("a refuse from a hook whose effect is only advise is dropped, not an objection", async () => {
    await withServe(hooks([{ name: "weak", on: "agent.stop", phase: "before", run: say({ refuse: "no" }) }]), async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
    });
  });

  test("an ask objects when the client cannot be asked", async () => {
    const list = [{ name: "confirm", on: "agent.stop", phase: "before", run: say({ ask: "stop with a dirty tree?" }), effect: "ask" }];
    await withServe(hooks(list), async (s) => {
      expect(JSON.parse(await hookText(s, "_Stop"))).toEqual([
        { hook: "confirm", server: "mcpx", text: "stop with a dirty tree? (asked, and nobody can answer here)" },
      ]);
    });
  });

  test("an ask is put to a client with elicitation: yes is no objection, no is one", async () => {
    const list = [{ name: "confirm", on: "agent.stop", phase: "before", run: say({ ask: "stop with a dirty tree?" }), effect: "ask" }];
    const s = await serve(hooks(list), { elicitation: {} });
    try {
      const asked: string[] = [];
      let allow = true;
      s.client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message);
        return { action: "accept", content: { allow } };
      });
      expect(await hookText(s, "_Stop")).toBe("");
      allow = false;
      expect(JSON.parse(await hookText(s, "_Stop"))).toEqual([{ hook: "confirm", server: "mcpx", text: "stop with a dirty tree?" }]);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain("stop with a dirty tree?");
    } finally {
      await s.close();
    }
  });
});

describe.concurrent("_Stop fans out to allowlisted servers' _Stop tools", () => {
  test("MCP_HOOK_SERVERS=fake: the server's _Stop text is an objection attributed to it, after mcpx's own, and it gets {}", async () => {
    const record = recordPath(sb, "stop");
    const env = {
      ...hooks([testRunner(join(sb.dir, "never-passes"))]),
      MCP_HOOK_SERVERS: "fake",
      FAKE_MCP_STOP_TEXT: "3 tasks still open",
      FAKE_MCP_RECORD: record,
    };
    await withServe(env, async (s) => {
      expect(JSON.parse(await hookText(s, "_Stop"))).toEqual([
        { hook: "tests", server: "mcpx", text: "tests are failing" },
        { hook: "_Stop", server: "fake", text: "3 tasks still open" },
      ]);
      expect(recordedCalls(record, "_Stop").map((c) => c.args)).toEqual([{}]);
    });
  });

  test("an empty answer from the server's _Stop is no objection", async () => {
    const record = recordPath(sb, "stop-empty");
    await withServe({ MCP_HOOK_SERVERS: "fake", FAKE_MCP_STOP_TEXT: "", FAKE_MCP_RECORD: record }, async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
      expect(recordedCalls(record, "_Stop")).toHaveLength(1);
    });
  });

  test("a server MCP_HOOK_SERVERS does not name is never asked", async () => {
    const record = recordPath(sb, "stop-not-allowed");
    await withServe({ MCP_HOOK_SERVERS: "other", FAKE_MCP_STOP_TEXT: "objection", FAKE_MCP_RECORD: record }, async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
      expect(recordedCalls(record, "_Stop")).toEqual([]);
    });
  });

  test("a _Stop slower than hooks.mcpTimeout is no objection; the second timeout in a row restarts the server", async () => {
    const record = recordPath(sb, "stop-slow");
    const env = {
      MCP_HOOK_SERVERS: "fake",
      FAKE_MCP_STOP_TEXT: "too late",
      FAKE_MCP_HOOK_DELAY: "3000",
      MCPX_HOOKS_MCP_TIMEOUT: "300ms",
      FAKE_MCP_RECORD: record,
    };
    await withServe(env, async (s) => {
      expect(await hookText(s, "_Stop")).toBe("");
      expect(recordedStarts(record)).toHaveLength(1); // one slow answer is tolerated
      expect(await hookText(s, "_Stop")).toBe("");
      expect(await hookText(s, "_Stop")).toBe(""); // asked a fresh server, started after the restart
      // a server killed on the first timeout would make this 3
      expect(recordedStarts(record)).toHaveLength(2);
    });
  });
});

describe.concurrent("_PostCompact", () => {
  test("returns the text an agent.compact hook wants re-injected, attributed to mcpx, then the allowlisted server's", async () => {
    const record = recordPath(sb, "compact");
    const env = {
      ...hooks([{ name: "todos", on: "agent.compact", phase: "onSuccess", run: say({ advise: "open: fix the parser" }) }]),
      MCP_HOOK_SERVERS: "fake",
      FAKE_MCP_COMPACT_TEXT: "you were refactoring lib/x",
      FAKE_MCP_RECORD: record,
    };
    await withServe(env, async (s) => {
      expect(JSON.parse(await hookText(s, "_PostCompact"))).toEqual([
        { hook: "todos", server: "mcpx", text: "open: fix the parser" },
        { hook: "_PostCompact", server: "fake", text: "you were refactoring lib/x" },
      ]);
      expect(recordedCalls(record, "_PostCompact").map((c) => c.args)).toEqual([{}]);
    });
  });

  test("is empty when nobody has anything to re-inject", async () => {
    await withServe({ MCP_HOOK_SERVERS: "fake", FAKE_MCP_COMPACT_TEXT: "" }, async (s) => {
      expect(await hookText(s, "_PostCompact")).toBe("");
    });
  });

  test("a hook that fails is reported on stderr and re-injects nothing", async () => {
    await withServe(hooks([{ name: "broken", on: "agent.compact", phase: "onSuccess", run: ["sh", "-c", "echo not json"] }]), async (s) => {
      expect(await hookText(s, "_PostCompact")).toBe("");
      expect(s.stderr()).toContain("broken");
      expect(s.stderr()).toContain("not one JSON object");
    });
  });
});

// The guard of test/e2e/hooks-points.test.ts, for the points only `mcpx serve` fires: each agent.*
// point in each phase the table declares gets a hook, and a tool call must make it run.
describe.concurrent("every agent point in every phase fires through mcpx serve", () => {
  const TOOL_FOR: Record<string, "_Stop" | "_PostCompact"> = { "agent.stop": "_Stop", "agent.compact": "_PostCompact" };
  for (const point of POINT_NAMES.filter((p) => p.startsWith("agent."))) {
    for (const phase of phasesOf(point)) {
      test(`a hook on ${point}.${phase} runs when the host calls ${TOOL_FOR[point]}`, async () => {
        const saved = join(sb.dir, `guard-${point}-${phase}-${Math.random().toString(36).slice(2)}.json`);
        await withServe(hooks([{ name: `guard-${point}-${phase}`, on: point, phase, run: say({}, saved) }]), async (s) => {
          expect(TOOL_FOR[point]).toBeDefined();
          await hookText(s, TOOL_FOR[point]!);
          expect(existsSync(saved)).toBe(true);
          expect(JSON.parse(readFileSync(saved, "utf8"))).toMatchObject({ point, phase });
        });
      });
    }
  }
});
