// Code a model wrote, sent to mcpx_exec with default settings, through both MCP doors (`mcpx serve`
// on stdio and the daemon's /mcp): every reach past the run's own files and its tool calls is refused
// by the sandbox (exec.sandbox auto = on for mcpx_exec, docs/security.md), and a tool call still works.
// Each attempt uses runtime-neutral APIs where there are any, so on an unsandboxed run it succeeds
// (before the sandbox, mcpx_exec ran `execSync("id")` as the user) and this suite goes red.

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

const doors: Record<string, Door> = {};

beforeAll(async () => {
  const env = { ...sb.env, [SECRET_ENV]: SECRET_VALUE };
  const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env, stderr: "pipe" });
  let said = "";
  transport.stderr?.on("data", (d: Buffer) => (said += d.toString()));
  const serve = new Client({ name: "sandbox-e2e", version: "0" });
  await serve.connect(transport);
  doors["mcpx serve"] = { client: serve, stderr: () => said };

  const d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { [SECRET_ENV]: SECRET_VALUE, MCPX_DAEMON_TOKEN: TOKEN } });
  const http = new Client({ name: "sandbox-e2e", version: "0" });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${d.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  doors["the daemon's /mcp"] = { client: http, stderr: () => d.stderr() };
}, 60_000);

afterAll(async () => {
  for (const d of Object.values(doors)) await d.client.close().catch(() => {});
  await stopDaemons();
  listener.stop(true);
});

const exec = async (door: Door, source: string, extra: Record<string, unknown> = {}) =>
  (await door.client.callTool({ name: "mcpx_exec", arguments: { source, ...extra } })) as Result;

/** the run failed with the sandbox's refusal (Deno's NotCapable, "Requires … access") and never showed `secret` */
function expectRefused(r: Result, secret?: string): void {
  const said = JSON.stringify(r);
  expect(r.structuredContent?.ok).toBe(false);
  expect(said).toMatch(/NotCapable|Requires [a-z]+ access/);
  if (secret) expect(said).not.toContain(secret);
}

const ATTEMPTS: Array<{ name: string; source: () => string; check: (r: Result) => void }> = [
  {
    name: "reading a file outside its own ($HOME/.ssh/id_rsa) is refused",
    source: () => `const fs = await import("node:fs"); return fs.readFileSync(${JSON.stringify(sshKey)}, "utf8")`,
    check: (r) => expectRefused(r, SECRET_TEXT),
  },
  {
    name: "reading /etc/passwd is refused",
    source: () => 'const fs = await import("node:fs"); return fs.readFileSync("/etc/passwd", "utf8")',
    check: (r) => expectRefused(r, "root:"),
  },
  {
    name: "importing a file outside its own (the module loader reads too) is refused, and its text is not shown",
    source: () => `return await import(${JSON.stringify(sshKey)})`,
    check: (r) => expectRefused(r, "AAAA-not-for-scripts"),
  },
  {
    name: "writing a file is refused, and no file appears",
    source: () => `const fs = await import("node:fs"); fs.writeFileSync(${JSON.stringify(written)}, "pwned"); return "wrote"`,
    check: (r) => {
      expectRefused(r);
      expect(existsSync(written)).toBe(false);
    },
  },
  {
    name: "a TCP connection to a local listener is refused, and the listener sees none",
    source: () =>
      `const net = await import("node:net"); return await new Promise((ok, no) => { const c = ` +
      `net.connect(${listener.port}, "127.0.0.1", () => { c.end(); ok("connected"); }); c.on("error", no); })`,
    check: (r) => {
      expectRefused(r);
      expect(connections).toBe(0);
    },
  },
  {
    name: "fetch to a local listener is refused",
    source: () => `return (await fetch("http://127.0.0.1:${listener.port}/")).status`,
    check: (r) => {
      expectRefused(r);
      expect(connections).toBe(0);
    },
  },
  {
    name: "a subprocess through node:child_process is refused",
    source: () => 'const cp = await import("node:child_process"); return cp.execFileSync("id").toString()',
    check: (r) => expectRefused(r, "uid="),
  },
  {
    name: "a subprocess through Deno.Command is refused",
    source: () => 'return new Deno.Command("id").outputSync().stdout.length',
    check: (r) => expectRefused(r, "uid="),
  },
  {
    name: "reading a variable of mcpx's environment is refused",
    source: () => `return process.env.${SECRET_ENV} ?? "not set"`,
    check: (r) => expectRefused(r, SECRET_VALUE),
  },
  {
    name: "listing the environment is refused",
    source: () => "return JSON.stringify(process.env)",
    check: (r) => expectRefused(r, SECRET_VALUE),
  },
  {
    name: "loading native code (FFI) is refused",
    source: () =>
      'if (globalThis.Deno) return Deno.dlopen("libc.so.6", { getpid: { parameters: [], result: ' +
      '"i32" } }).symbols.getpid(); const ffi = await import("bun:ffi"); return ' +
      'ffi.dlopen("libc.so.6", { getpid: { args: [], returns: "i32" } }).symbols.getpid()',
    check: (r) => expectRefused(r),
  },
];

for (const doorName of ["mcpx serve", "the daemon's /mcp"]) {
  describe(`mcpx_exec through ${doorName}, default settings`, () => {
    test("a tool call still works, through the gate", async () => {
      const r = await exec(doors[doorName]!, 'const r = await fake.echo({ message: "through the sandbox" }); return r');
      expect(r.structuredContent?.ok).toBe(true);
      expect(JSON.stringify(r.structuredContent?.result)).toContain("through the sandbox");
    });

    for (const a of ATTEMPTS) {
      test(a.name, async () => a.check(await exec(doors[doorName]!, a.source())));
    }

    test('asking for sandbox "off" is refused, not obeyed: the server\'s own setting sandboxes mcpx_exec', async () => {
      const r = await exec(doors[doorName]!, 'const cp = await import("node:child_process"); return cp.execFileSync("id").toString()', { sandbox: "off" });
      expect(r.structuredContent?.ok).toBe(false);
      expect(JSON.stringify(r)).not.toContain("uid=");
      expect(r.structuredContent?.error?.message).toContain("never loosen");
    });

    test("runtime bun with the sandbox on is refused, naming both", async () => {
      const r = await exec(doors[doorName]!, "return 1", { runtime: "bun" });
      expect(r.structuredContent?.ok).toBe(false);
      expect(r.structuredContent?.error?.message).toMatch(/runtime bun.*sandbox/);
    });

    test("says nothing about unsandboxed code at start", () => {
      expect(doors[doorName]!.stderr()).not.toContain("UNSANDBOXED");
    });
  });
}
