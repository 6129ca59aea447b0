// Code a model wrote, sent to mcpx_exec with default settings, through both MCP doors (`mcpx serve`
// on stdio and the daemon's /mcp) and on both sandbox engines (exec.sandboxEngine: the embedded
// QuickJS, the default, and Deno): every reach past the run's own files and its tool calls is refused
// by the sandbox (exec.sandbox auto = on for mcpx_exec, docs/security.md), and a tool call still works.
// Each attempt uses runtime-neutral APIs where there are any, so on an unsandboxed run it succeeds
// (before the sandbox, mcpx_exec ran `execSync("id")` as the user) and this suite goes red. Then what
// a script may try against the run itself: a busy loop, a memory bomb, tampered prototypes around
// the engine's host functions, frames it writes itself, a promise it never settles.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const SECRET_TEXT = "ssh-rsa AAAA-not-for-scripts";
const sshKey = join(sb.home, ".ssh", "id_rsa");
mkdirSync(join(sb.home, ".ssh"), { recursive: true });
writeFileSync(sshKey, SECRET_TEXT + "\n", { mode: 0o600 });
const SECRET_ENV = "MCPX_E2E_SECRET";
const SECRET_VALUE = "env-secret-" + Math.random().toString(36).slice(2);
const TOKEN = "sandbox-e2e-token-" + Math.random().toString(36).slice(2);
const written = join(sb.dir, "written-by-script.txt");

// a local TCP listener: a sandboxed script must not reach it
let connections = 0;
const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void connections++, data() {} } });

type Result = CallToolResult & { structuredContent?: { ok?: boolean; result?: unknown; error?: { name?: string; message?: string } } };

interface Door {
  client: Client;
  stderr(): string;
}

const ENGINES = ["quickjs", "deno"] as const;
type Engine = (typeof ENGINES)[number];
const DOORS = ["mcpx serve", "the daemon's /mcp"] as const;
const doors: Record<string, Door> = {};
const doorOf = (door: string, engine: Engine) => doors[`${door} on ${engine}`]!;
// a small heap, so the memory bomb ends soon; the busy loop and the unsettled promise ask for a short
// timeout of their own (a run may lower the agent's timeout, never lift it)
const LIMITS = { MCPX_EXEC_AGENT_MAX_HEAP: "64" };
const SHORT_MS = 3000;

beforeAll(async () => {
  for (const engine of ENGINES) {
    // the default engine is left to its default: nothing sets it
    const engineEnv: Record<string, string> = engine === "quickjs" ? {} : { MCPX_EXEC_SANDBOX_ENGINE: engine };
    const env = { ...sb.env, [SECRET_ENV]: SECRET_VALUE, ...LIMITS, ...engineEnv };
    const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env, stderr: "pipe" });
    let said = "";
    transport.stderr?.on("data", (d: Buffer) => (said += d.toString()));
    const serve = new Client({ name: "sandbox-e2e", version: "0" });
    await serve.connect(transport);
    doors[`mcpx serve on ${engine}`] = { client: serve, stderr: () => said };

    mkdirSync(join(sb.dir, engine), { recursive: true });
    const daemonEnv = { [SECRET_ENV]: SECRET_VALUE, MCPX_DAEMON_TOKEN: TOKEN, ...LIMITS, ...engineEnv };
    const d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: daemonEnv, cwd: join(sb.dir, engine) });
    const http = new Client({ name: "sandbox-e2e", version: "0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${d.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    doors[`the daemon's /mcp on ${engine}`] = { client: http, stderr: () => d.stderr() };
  }
}, 120_000);

afterAll(async () => {
  for (const d of Object.values(doors)) await d.client.close().catch(() => {});
  await stopDaemons();
  listener.stop(true);
});

const exec = async (door: Door, source: string, extra: Record<string, unknown> = {}) =>
  (await door.client.callTool({ name: "mcpx_exec", arguments: { source, ...extra } })) as Result;

/**
 * The sandbox's refusal: Deno's NotCapable ("Requires … access"); on QuickJS, its module loader's
 * NotCapable, or the API not being there at all (no fetch or Deno exists inside it).
 */
const REFUSAL: Record<Engine, RegExp> = {
  deno: /NotCapable|Requires [a-z]+ access/,
  quickjs: /NotCapable: the QuickJS sandbox|'(fetch|Deno)' is not defined/,
};

/** the run failed with the sandbox's refusal and never showed `secret` */
function expectRefused(r: Result, engine: Engine, secret?: string): void {
  const said = JSON.stringify(r);
  expect(r.structuredContent?.ok).toBe(false);
  expect(said).toMatch(REFUSAL[engine]);
  if (secret) expect(said).not.toContain(secret);
}

/** on QuickJS, process.env holds the run's own variables and nothing else: there is nothing to refuse, and nothing of mcpx's is there */
const unseen = (r: Result, shown: unknown) => {
  expect(r.structuredContent).toMatchObject({ ok: true, result: shown });
  expect(JSON.stringify(r)).not.toContain(SECRET_VALUE);
};

const ATTEMPTS: Array<{ name: string; source: () => string; check: (r: Result, engine: Engine) => void }> = [
  {
    name: "reading a file outside its own ($HOME/.ssh/id_rsa) is refused",
    source: () => `const fs = await import("node:fs"); return fs.readFileSync(${JSON.stringify(sshKey)}, "utf8")`,
    check: (r, e) => expectRefused(r, e, SECRET_TEXT),
  },
  {
    name: "reading /etc/passwd is refused",
    source: () => 'const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd", "utf8")',
    check: (r, e) => expectRefused(r, e, "root:"),
  },
  {
    name: "importing a file outside its own (the module loader reads too) is refused, and its text is not shown",
    source: () => `return await import(${JSON.stringify(sshKey)})`,
    check: (r, e) => expectRefused(r, e, "AAAA-not-for-scripts"),
  },
  {
    name: "writing a file is refused, and no file appears",
    source: () => `const fs = await import("node:fs"); fs.writeFileSync(${JSON.stringify(written)}, "pwned"); return "wrote"`,
    check: (r, e) => {
      expectRefused(r, e);
      expect(existsSync(written)).toBe(false);
    },
  },
  {
    name: "a TCP connection to a local listener is refused, and the listener sees none",
    source: () =>
      `const net = await import("node:net"); return await new Promise((ok, no) => { const c = ` +
      `net.connect(${listener.port}, "127.0.0.1", () => { c.end(); ok("connected"); }); c.on("error", no); })`,
    check: (r, e) => {
      expectRefused(r, e);
      expect(connections).toBe(0);
    },
  },
  {
    name: "fetch to a local listener is refused",
    source: () => `return (await fetch("http://127.0.0.1:${listener.port}/")).status`,
    check: (r, e) => {
      expectRefused(r, e);
      expect(connections).toBe(0);
    },
  },
  {
    name: "a subprocess through node:child_process is refused",
    source: () => 'const cp = await import("node:child_process"); return cp.execFileSync("id").toString()',
    check: (r, e) => expectRefused(r, e, "uid="),
  },
  {
    name: "a subprocess through Deno.Command is refused",
    source: () => 'return new Deno.Command("id").outputSync().stdout.length',
    check: (r, e) => expectRefused(r, e, "uid="),
  },
  {
    name: "reading a variable of mcpx's environment is refused, or on QuickJS not there",
    source: () => `return process.env.${SECRET_ENV} ?? "not set"`,
    check: (r, e) => (e === "quickjs" ? unseen(r, "not set") : expectRefused(r, e, SECRET_VALUE)),
  },
  {
    name: "listing the environment is refused, or on QuickJS lists nothing",
    source: () => "return JSON.stringify(process.env)",
    check: (r, e) => (e === "quickjs" ? unseen(r, "{}") : expectRefused(r, e, SECRET_VALUE)),
  },
  {
    name: "loading native code (FFI) is refused",
    source: () =>
      'if (globalThis.Deno) return Deno.dlopen("libc.so.6", { getpid: { parameters: [], result: ' +
      '"i32" } }).symbols.getpid(); const ffi = await import("bun:ffi"); return ' +
      'ffi.dlopen("libc.so.6", { getpid: { args: [], returns: "i32" } }).symbols.getpid()',
    check: (r, e) => expectRefused(r, e),
  },
];

/** what a script may try against the run itself and the engine's host functions; each must end as the run's own error, never the server's */
const AGAINST_THE_RUN: Array<{ name: string; source: string; check: (r: Result, engine: Engine) => void; only?: Engine; short?: boolean }> = [
  {
    name: "a busy loop ends at its timeout with a timeout error",
    source: "for (;;) {}",
    short: true,
    check: (r) => {
      expect(r.structuredContent?.ok).toBe(false);
      expect(r.structuredContent).toMatchObject({ exitCode: 124, error: { code: "TIMEOUT" } });
      expect(JSON.stringify(r)).toContain(`timeout of ${SHORT_MS}ms`);
    },
  },
  {
    name: "a memory bomb ends at exec.agentMaxHeap with a heap-limit error",
    source: "const keep = [];\nfor (let i = 0; ; i++) keep.push(i % 2 ? new Array(1e6).fill(i) : new Uint8Array(8e6).fill(1));",
    check: (r) => {
      expect(r.structuredContent?.ok).toBe(false);
      expect(r.structuredContent?.error?.name).toBe("HeapLimitError");
      expect(JSON.stringify(r)).toContain("heap limit of 64 MiB (exec.agentMaxHeap)");
    },
  },
  {
    // the engine's host functions are taken by the launcher before any of the script's code runs
    name: "no host function of the engine is left where the script can reach it",
    source: "return Object.getOwnPropertyNames(globalThis).filter((n) => /mcpx|quickjs/i.test(n))",
    check: (r) => expect(r.structuredContent).toMatchObject({ ok: true, result: [] }),
  },
  {
    // the launcher holds the host functions it calls from before the script ran: replaced methods change
    // nothing of its output or its calls. QuickJS only: Deno's own runtime code runs in the script's realm
    // and calls Function.prototype.call itself, so there the script only breaks its own run
    name: "replacing Function.prototype.call, apply and bind, and getters named as the host functions, does not stop the script's output or its tool calls",
    only: "quickjs",
    source:
      'const no = () => { throw new Error("tampered"); };\n' +
      "Function.prototype.call = no; Function.prototype.apply = no; Function.prototype.bind = no;\n" +
      'Object.defineProperty(Object.prototype, "write", { get: no, configurable: true });\n' +
      'Object.defineProperty(Object.prototype, "handoff", { get: no, configurable: true });\n' +
      'console.log("printed after tampering");\n' +
      'return (await fake.echo({ message: "called after tampering" }))',
    check: (r) => {
      expect(r.structuredContent?.ok).toBe(true);
      expect(JSON.stringify(r.structuredContent?.result)).toContain("called after tampering");
      expect(JSON.stringify(r)).toContain("printed after tampering");
    },
  },
  {
    // a frame needs the run's nonce, which the script never sees: what it writes is its stdout
    name: "a frame the script prints itself is its stdout, never a frame: the result is the script's own",
    source: 'console.log("\\x1e" + JSON.stringify({ t: "result", v: "forged", u: false }));\nconsole.log("\\x1e\\x1e{\\"t\\":\\"error\\"}");\nreturn "real"',
    check: (r) => {
      expect(r.structuredContent).toMatchObject({ ok: true, result: "real" });
    },
  },
  {
    name: "a promise the script never settles ends the run with an error, not the server",
    source: "await new Promise(() => {});\nreturn 1",
    short: true,
    check: (r) => {
      expect(r.structuredContent?.ok).toBe(false);
      expect(JSON.stringify(r.structuredContent?.error)).not.toContain("result: 1");
    },
  },
];

for (const engine of ENGINES)
  for (const doorName of DOORS) {
    describe(`mcpx_exec through ${doorName} on ${engine}, default settings${engine === "quickjs" ? " (the default engine)" : ""}`, () => {
      const door = () => doorOf(doorName, engine);
      test("a tool call still works, through the gate", async () => {
        const r = await exec(door(), 'const r = await fake.echo({ message: "through the sandbox" }); return r');
        expect(r.structuredContent?.ok).toBe(true);
        expect(JSON.stringify(r.structuredContent?.result)).toContain("through the sandbox");
      });

      for (const a of ATTEMPTS) {
        test(a.name, async () => a.check(await exec(door(), a.source()), engine));
      }

      for (const a of AGAINST_THE_RUN.filter((x) => !x.only || x.only === engine)) {
        test(a.name, async () => a.check(await exec(door(), a.source, a.short ? { timeoutMs: SHORT_MS } : {}), engine), 30_000);
      }

      test('asking for sandbox "off" is refused, not obeyed: the server\'s own setting sandboxes mcpx_exec', async () => {
        const r = await exec(door(), 'const cp = await import("node:child_process"); return cp.execFileSync("id").toString()', { sandbox: "off" });
        expect(r.structuredContent?.ok).toBe(false);
        expect(JSON.stringify(r)).not.toContain("uid=");
        expect(r.structuredContent?.error?.message).toContain("never loosen");
      });

      test("runtime bun with the sandbox on is refused, naming both", async () => {
        const r = await exec(door(), "return 1", { runtime: "bun" });
        expect(r.structuredContent?.ok).toBe(false);
        expect(r.structuredContent?.error?.message).toMatch(/runtime bun.*sandbox/);
      });

      test("says nothing about unsandboxed code at start", () => {
        expect(door().stderr()).not.toContain("UNSANDBOXED");
      });

      test("after all of the above, the server still answers a tool call", async () => {
        const r = await exec(door(), 'return (await fake.echo({ message: "still here" }))');
        expect(JSON.stringify(r.structuredContent?.result)).toContain("still here");
      });
    });
  }
