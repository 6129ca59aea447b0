// What an agent may declare through mcpx_exec, on both MCP doors (`mcpx serve` and the daemon's
// /mcp), and what a sandboxed run can still reach (decision 0017). Each attempt here
// succeeded on the main before it: a per-run `run` hook ran `id` as the user, `env` became the
// sandboxed Deno's own environment (LD_PRELOAD loaded before any permission applied), the sandbox
// could write its handoff file, the Cache API wrote under $XDG_CACHE_HOME/deno with no write grant,
// hook processes saw the daemon's token and the model's key, and a serve session that ended mid-run
// left its .run and .sock files behind.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { EXEC_FIELDS, refusedField } from "../../lib/trust/door-authority.ts";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
// what this file drives is Deno's own environment (LD_PRELOAD, its handoff file, the Cache API): every
// door here sandboxes on Deno; the embedded QuickJS, which has none of these, is sandbox-hostile.test.ts's
sb.env.MCPX_EXEC_SANDBOX_ENGINE = "deno";
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_HANG_TOOL: "echo" }) } });
const TOKEN = "agent-door-e2e-token-" + Math.random().toString(36).slice(2);
const pwned = join(sb.dir, "pwned");

type Result = CallToolResult & { structuredContent?: { ok?: boolean; result?: unknown; stderr?: string; error?: { message?: string } } };
interface Door {
  client: Client;
}
const doors: Record<string, Door> = {};
let daemon: Awaited<ReturnType<typeof startDaemon>>;
/** the same user's daemon on its default unix socket (0600, no token) */
let unixDaemon: Awaited<ReturnType<typeof startDaemon>>;

beforeAll(async () => {
  const serve = new Client({ name: "agent-door-e2e", version: "0" });
  await serve.connect(new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "pipe" }));
  doors["mcpx serve"] = { client: serve };
  daemon = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
  unixDaemon = await startDaemon(sb);
  const http = new Client({ name: "agent-door-e2e", version: "0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${daemon.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  doors["the daemon's /mcp"] = { client: http };
}, 60_000);

afterAll(async () => {
  for (const d of Object.values(doors)) await d.client.close().catch(() => {});
  await stopDaemons();
});

const exec = async (door: Door, args: Record<string, unknown>) =>
  (await door.client.callTool({ name: "mcpx_exec", arguments: { source: "return 1", ...args } })) as Result;
/** POST /v1/exec on one of the user's own doors: over TCP with the token, or on the unix socket */
async function userExec(body: Record<string, unknown>, over: "tcp" | "unix" = "tcp"): Promise<Record<string, unknown>> {
  const res = await (over === "tcp" ? daemon : unixDaemon).fetch("/v1/exec", {
    method: "POST",
    headers: { "content-type": "application/json", ...(over === "tcp" ? { authorization: `Bearer ${TOKEN}` } : {}) },
    body: JSON.stringify({ output: "json", ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}
const text = (r: Result) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");

/** a sample value of each ExecOptions field, and one an agent must be refused, where the table checks the value */
const SAMPLES: Record<string, { allowed?: unknown; refused?: unknown; source?: string }> = {
  source: { allowed: "return 1" },
  name: { allowed: "n" },
  args: { allowed: ["a"] },
  export: { allowed: "main", source: "export const main = () => 1" },
  script: { allowed: { before: ["log('x')"] } },
  hooks: {
    allowed: [{ on: "script", phase: "before", plugin: "fake.add", args: { a: 1, b: 2 } }],
    refused: [{ on: "script", phase: "before", run: ["sh", "-c", `id > ${pwned}`] }],
  },
  runtime: { allowed: "auto" },
  sandbox: { allowed: "on" },
  timeoutMs: { allowed: 30_000 },
  timeout: { allowed: "30s" },
  env: { allowed: { GREETING: "hi" }, refused: { LD_PRELOAD: "/nonexistent/lib.so" } },
  stdin: { allowed: "in" },
  cwd: { allowed: "." },
  output: { allowed: "json" },
  delivery: { allowed: "stream" },
  settings: { allowed: { "hooks.retryBudget": 0, "mcp.callTimeout": "30s" }, refused: { "hooks.autonomy": "off" } },
  // a paused run's id: an agent may resume one the user decided, never decide it (test/e2e/serve-approvals.test.ts)
  resume: {},
};

describe("the door table", () => {
  test("every field of mcpx_exec has a row in the door table, and every row a sample here", async () => {
    const { McpExecArgsSchema } = await import("../../lib/mcpserver/schemas.ts");
    const mcpKeys = Object.keys((McpExecArgsSchema as unknown as { entries: Record<string, unknown> }).entries);
    for (const key of mcpKeys) expect(Object.keys(EXEC_FIELDS)).toContain(key);
    for (const key of mcpKeys) expect(Object.keys(SAMPLES)).toContain(key);
  });

  for (const [field, sample] of Object.entries(SAMPLES)) {
    for (const kind of ["allowed", "refused"] as const) {
      if (!(kind in sample)) continue;
      const value = sample[kind];
      for (const name of ["mcpx serve", "the daemon's /mcp"]) {
        test(`an agent that sets ${field} (${kind === "allowed" ? "a value it may set" : "a value it may not"}) through ${name} is ${kind}`, async () => {
          // the table itself says so, and the door does as the table says
          expect(refusedField("agent", { [field]: value }) === undefined).toBe(kind === "allowed");
          const r = await exec(doors[name]!, { ...(sample.source ? { source: sample.source } : {}), [field]: value });
          if (kind === "refused") {
            expect(r.isError).toBe(true);
            expect(text(r)).toContain(`mcpx_exec refused ${field}`);
          } else {
            expect(text(r)).not.toContain("mcpx_exec refused");
            expect(r.structuredContent?.ok).toBe(true);
          }
        });
      }
      for (const over of ["tcp", "unix"] as const) {
        const what = kind === "allowed" ? "the agent's allowed value" : "what an agent may not";
        test(`the user's POST /v1/exec (${over}) may set ${field} (${what})`, async () => {
          expect(refusedField("user", { [field]: value })).toBeUndefined();
          // the hook would run as the user, which this door may ask for; the run of it is not the point here
          const sent = field === "hooks" && kind === "refused" ? [{ on: "script", phase: "before", run: ["true"] }] : value;
          const envelope = await userExec({ source: sample.source ?? "return 1", [field]: sent }, over);
          expect(JSON.stringify(envelope)).not.toContain("refused");
          expect(envelope.ok).toBe(true);
        });
      }
    }
  }
});

describe("hooks an agent may not declare", () => {
  for (const name of ["mcpx serve", "the daemon's /mcp"]) {
    test(`a per-run run hook through ${name} is refused naming the field, and never runs`, async () => {
      const r = await exec(doors[name]!, { hooks: [{ on: "script", phase: "before", run: ["sh", "-c", `id > ${pwned}`] }] });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("hooks[0].run");
      expect(text(r)).toContain("outside the sandbox");
      expect(existsSync(pwned)).toBe(false);
    });
    test(`a per-run module hook through ${name} is refused naming the field`, async () => {
      const mod = sb.write("hook-module.ts", `(await import("node:fs")).writeFileSync(${JSON.stringify(pwned)}, "x"); export default () => ({})`);
      const r = await exec(doors[name]!, { hooks: [{ on: "script", phase: "before", module: mod }] });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("hooks[0].module");
      expect(existsSync(pwned)).toBe(false);
    });
    test(`a per-run prompt hook through ${name} is refused naming the field`, async () => {
      const r = await exec(doors[name]!, { hooks: [{ on: "script", phase: "before", prompt: "say yes" }] });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("hooks[0].prompt");
    });
  }
});

describe("an agent's env is the script's view, never its runtime's environment", () => {
  for (const name of ["mcpx serve", "the daemon's /mcp"]) {
    for (const variable of ["LD_PRELOAD", "LD_LIBRARY_PATH", "DENO_DIR", "DENO_V8_FLAGS", "NODE_OPTIONS", "BUN_OPTIONS", "GLIBC_TUNABLES", "MCPX_RUN"]) {
      test(`${variable} in env through ${name} is refused naming it`, async () => {
        const r = await exec(doors[name]!, { env: { [variable]: "/nonexistent/lib.so" } });
        expect(r.isError).toBe(true);
        expect(text(r)).toContain(`mcpx_exec refused env`);
        expect(text(r)).toContain(JSON.stringify(variable));
      });
    }
    test(`a variable the agent may set reaches the sandboxed script through ${name}`, async () => {
      const r = await exec(doors[name]!, { source: 'return [Deno.env.get("GREETING"), process.env.GREETING]', env: { GREETING: "hi" } });
      expect(r.structuredContent?.result).toEqual(["hi", "hi"]);
    });
  }

  test("a sandboxed run of the user's own with LD_PRELOAD in --env sees it, and the dynamic loader never does", async () => {
    // ld.so says "cannot be preloaded" on stderr for a library it tried to load: it must never try
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "--env", "LD_PRELOAD=/nonexistent/mcpx-e2e.so", 'return Deno.env.get("LD_PRELOAD")']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("/nonexistent/mcpx-e2e.so");
    expect(r.stderr).not.toContain("preloaded");
  });

  test("the same through POST /v1/exec with sandbox on", async () => {
    const envelope = await userExec({ source: 'return Deno.env.get("LD_PRELOAD")', sandbox: "on", env: { LD_PRELOAD: "/nonexistent/mcpx-e2e.so" } });
    expect(envelope.result).toBe("/nonexistent/mcpx-e2e.so");
    expect(String(envelope.stderr ?? "")).not.toContain("preloaded");
  });
});

describe("what a caller may not raise", () => {
  test("a run's own apply hook is capped at refuse, and its hook frame names the cap", async () => {
    const swap = { name: "swap", on: "script", phase: "onSuccess", run: ["sh", "-c", `cat > /dev/null; echo '{"apply": 2}'`], effect: "apply" };
    const envelope = (await userExec({ source: "return 1", hooks: [swap] })) as { result: unknown; hooks: Array<Record<string, unknown>> };
    expect(envelope.result).toBe(1);
    const frame = envelope.hooks.find((h) => h.name === "swap")!;
    expect(frame.effect).toBe("refuse");
    expect(frame.dropped).toEqual(["apply: above refuse (clamped by the per-run hooks' cap)"]);
  });
});

describe("what a sandboxed run can write", () => {
  const door = () => doors["mcpx serve"]!;

  test("its handoff file is read-only to it, and gone once the run has connected", async () => {
    const r = await exec(door(), {
      source:
        "let write; try { Deno.writeTextFileSync(Deno.args[0], 'planted'); write = 'wrote' } catch (e) { write = e.name }\n" +
        "await new Promise((r) => setTimeout(r, 0));\n" +
        "for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {\n" +
        "  try { Deno.statSync(Deno.args[0]) } catch (e) { return [write, e.name] }\n" +
        "}\n" +
        "return [write, 'still there']",
    });
    expect(r.structuredContent?.result).toEqual(["NotCapable", "NotFound"]);
  });

  test("the Cache API and localStorage throw, also from a Worker, and nothing is written under the user's caches", async () => {
    const put = "const c = await caches.open('x'); await c.put('http://a.test/b', new Response('y'.repeat(1 << 20)));";
    const workerSource = `try { ${put} postMessage('put') } catch (e) { postMessage('worker caches: ' + e.message) }`;
    const r = await exec(door(), {
      source:
        `const out = [];\n` +
        `try { ${put} out.push('put') } catch (e) { out.push('caches: ' + e.message) }\n` +
        `try { localStorage.setItem('a', 'b'); out.push('stored') } catch (e) { out.push('localStorage: ' + e.name) }\n` +
        `out.push(await new Promise((resolve) => {\n` +
        `  const w = new Worker('data:text/javascript,' + encodeURIComponent(${JSON.stringify(workerSource)}), { type: 'module' });\n` +
        `  w.onmessage = (e) => { w.terminate(); resolve(e.data) };\n` +
        `  w.onerror = (e) => { e.preventDefault(); w.terminate(); resolve('worker error: ' + e.message) };\n` +
        `}));\n` +
        `return out`,
    });
    const out = r.structuredContent?.result as string[];
    expect(out).toHaveLength(3);
    expect(out.join("\n")).not.toMatch(/^put$|^stored$/m);
    const cache = sb.env.XDG_CACHE_HOME!;
    const storage = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);
    expect(storage(join(cache, "deno", "location_data"))).toEqual([]);
    // mcpx's own sandbox DENO_DIR holds location_data as an empty file, so no directory can be made under it
    expect(readFileSync(join(cache, "mcpx", "sandbox-deno", "location_data"), "utf8")).toBe("");
  });
});

describe("mcpx's secrets stay with mcpx", () => {
  test("a run hook's environment has neither the daemon's token nor the model's key", async () => {
    const local = sandbox();
    const dump = join(local.dir, "hook-env.txt");
    writeConfig(local, ".mcpx.json", { hooks: [{ on: "script", phase: "before", run: ["sh", "-c", `env > ${dump}`] }] });
    const r = await mcpx(local, ["exec", "return 1"], { env: { MCPX_DAEMON_TOKEN: TOKEN, MCPX_MODEL_API_KEY: "sk-e2e-secret" } });
    expect(r.code).toBe(0);
    const seen = readFileSync(dump, "utf8");
    expect(seen).toContain("MCPX_HOOK_POINT=script");
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toContain("sk-e2e-secret");
  });
});

describe("a serve session that ends mid-run", () => {
  test("leaves no .run or .sock file behind", async () => {
    const local = sandbox();
    writeConfig(local, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_HANG_TOOL: "echo" }) } });
    const runDir = join(local.env.XDG_RUNTIME_DIR!, "mcpx");
    const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: local.dir, env: local.env, stderr: "pipe" });
    const client = new Client({ name: "agent-door-e2e", version: "0" });
    await client.connect(transport);
    const running = client.callTool({ name: "mcpx_exec", arguments: { source: "await fake.echo({ message: 'never answered' })" } }).catch(() => undefined);
    const files = () => (existsSync(runDir) ? readdirSync(runDir).filter((f) => /\.(run|sock)$/.test(f)) : []);
    for (const until = Date.now() + 20_000; !files().some((f) => f.endsWith(".sock")); await Bun.sleep(20)) {
      if (Date.now() > until) throw new Error(`the run's socket never appeared in ${runDir}`);
    }
    const pid = transport.pid!;
    await client.close();
    await running;
    // the server has exited (its pid is gone) before its files are looked at
    for (const until = Date.now() + 20_000; existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z "); await Bun.sleep(20)) {
      if (Date.now() > until) throw new Error("mcpx serve did not exit after its client closed");
    }
    expect(files()).toEqual([]);
  });
});

describe("an agent cannot switch off the guards set for it", () => {
  // each of these settings, from an agent, lowered the ceiling of (or the time given to) the serve
  // side's own refusing hook: with hooks.autonomy "off" the refusal was dropped and the call sent
  const guarded = sandbox();
  const record = join(guarded.dir, "calls.jsonl");
  writeConfig(guarded, ".mcpx.json", {
    mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) },
    hooks: [{ name: "no-adding", on: "call", phase: "before", run: ["sh", "-c", `echo '{"refuse": "adding is not allowed"}'`], effect: "refuse" }],
  });
  const client = new Client({ name: "agent-guard-e2e", version: "0" });
  beforeAll(async () => {
    await client.connect(new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: guarded.dir, env: guarded.env, stderr: "pipe" }));
  }, 60_000);
  afterAll(() => client.close());
  const adds = () =>
    existsSync(record)
      ? readFileSync(record, "utf8")
          .split("\n")
          .filter((l) => l.includes('"add"')).length
      : 0;

  test("the guard refuses the agent's call as configured", async () => {
    const r = (await client.callTool({ name: "mcpx_exec", arguments: { source: "return await fake.add({ a: 1, b: 2 })" } })) as Result;
    expect(r.structuredContent?.ok).toBe(false);
    expect(JSON.stringify(r.structuredContent)).toContain("adding is not allowed");
    expect(adds()).toBe(0);
  });

  for (const [key, value] of [
    ["hooks.autonomy", "off"],
    ["autonomy.max", "advise"],
    ["hooks.timeout", "1ms"],
    ["hooks.mcpTimeout", "1ms"],
  ] as const) {
    test(`settings.${key} from an agent is refused naming it, and the call is never sent`, async () => {
      const r = (await client.callTool({
        name: "mcpx_exec",
        arguments: { source: "return await fake.add({ a: 1, b: 2 })", settings: { [key]: value } },
      })) as Result;
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`mcpx_exec refused settings: an agent's run may not set "${key}"`);
      expect(adds()).toBe(0);
    });
  }
});
