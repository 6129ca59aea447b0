// exec.sandbox on the local user's doors and its edges: the CLI is unsandboxed by default (unchanged),
// --sandbox on sandboxes it on either engine (exec.sandboxEngine: the embedded QuickJS by default, or
// Deno), exec.sandboxAllow widens Deno's deliberately and is an error on QuickJS, `mcpx serve
// --sandbox off` says so on stderr, the default engine needs nothing but the binary (no Deno on PATH
// or in any node_modules), no Deno for the Deno engine is exit 2 and never an unsandboxed run, and
// nothing a script imports is installed behind the user's back (exec.autoInstall). Also the files mcpx writes: a /tmp socket
// directory that is not ours is not used, and a short daemon.token is refused.

import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
const secret = sb.write("outside/secret.txt", "the-secret-text");
const READ = `const fs = await import("node:fs"); return fs.readFileSync(${JSON.stringify(secret)}, "utf8")`;

const envelope = (r: { stdout: string }) => JSON.parse(r.stdout) as { ok: boolean; result?: unknown; error?: { name?: string; message?: string } };

describe("the CLI", () => {
  test("is unsandboxed by default: a snippet reads any file the user can", async () => {
    const r = await mcpx(sb, ["exec", "--json", READ]);
    expectExit(r, 0);
    expect(envelope(r).result).toBe("the-secret-text");
  });

  test("--sandbox on runs the snippet on the embedded QuickJS: the read is refused, as it has no file system", async () => {
    const r = await mcpx(sb, ["exec", "--json", "--sandbox", "on", READ]);
    expectExit(r, 1);
    expect(r.stdout).not.toContain("the-secret-text");
    expect(envelope(r).error?.message).toContain('NotCapable: the QuickJS sandbox loads no module but the run\'s own script, and refused "node:fs"');
  });

  test("--sandbox on with --sandbox-engine deno runs the snippet on Deno: the read is refused by Deno's permissions", async () => {
    const r = await mcpx(sb, ["exec", "--json", "--sandbox", "on", "--sandbox-engine", "deno", READ]);
    expectExit(r, 1);
    expect(r.stdout).not.toContain("the-secret-text");
    expect(envelope(r).error?.message).toContain(`Requires read access to "${secret}"`);
  });

  test("MCPX_EXEC_SANDBOX=on does the same, and a file script still returns a value on either engine", async () => {
    const script = sb.write("plain.ts", "export default (args: string[]) => args.length + 40;\n");
    for (const engine of ["quickjs", "deno"]) {
      const r = await mcpx(sb, ["run", "--json", script, "a", "b"], { env: { MCPX_EXEC_SANDBOX: "on", MCPX_EXEC_SANDBOX_ENGINE: engine } });
      expectExit(r, 0);
      expect(envelope(r).result).toBe(42);
    }
  });

  test("on Deno, a sandboxed file script may still read itself", async () => {
    const script = sb.write(
      "own.ts",
      'import { readFileSync } from "node:fs";\nexport default () => readFileSync(new URL(import.meta.url).pathname, "utf8").length;\n',
    );
    const r = await mcpx(sb, ["run", "--json", script], { env: { MCPX_EXEC_SANDBOX: "on", MCPX_EXEC_SANDBOX_ENGINE: "deno" } });
    expectExit(r, 0);
    expect(envelope(r).result).toBeGreaterThan(10);
  });

  test("exec.sandboxAllow widens the Deno sandbox deliberately, and settings get shows it with its origin", async () => {
    const allow = JSON.stringify({ read: [secret] });
    const r = await mcpx(sb, ["exec", "--json", "--sandbox", "on", READ], { env: { MCPX_EXEC_SANDBOX_ALLOW: allow, MCPX_EXEC_SANDBOX_ENGINE: "deno" } });
    expectExit(r, 0);
    expect(envelope(r).result).toBe("the-secret-text");
    const shown = await mcpx(sb, ["settings", "get", "exec.sandboxAllow"], { env: { MCPX_EXEC_SANDBOX_ALLOW: allow } });
    expectExit(shown, 0);
    expect(shown.stdout).toContain(secret);
    expect(shown.stdout).toContain("env:MCPX_EXEC_SANDBOX_ALLOW");
  });

  test("exec.sandboxAllow on the QuickJS engine is an error naming both settings and the way to Deno, and nothing runs", async () => {
    const allow = JSON.stringify({ read: [secret] });
    const r = await mcpx(sb, ["exec", "--sandbox", "on", 'console.log("RAN"); return 1'], { env: { MCPX_EXEC_SANDBOX_ALLOW: allow } });
    expectExit(r, 2);
    expect(r.stdout).not.toContain("RAN");
    expect(r.stderr).toContain("exec.sandboxAllow grants Deno permissions, but exec.sandboxEngine is quickjs (default)");
    expect(r.stderr).toContain("MCPX_EXEC_SANDBOX_ENGINE=deno");
  });

  test("on the QuickJS engine, the run's own variables are its process.env, and nothing of mcpx's environment is", async () => {
    const r = await mcpx(sb, ["exec", "--json", "--sandbox", "on", "--env", "GREETING=hi", "return [process.env.GREETING, Object.keys(process.env)]"], {
      env: { MCPX_E2E_OWN: "of mcpx" },
    });
    expectExit(r, 0);
    expect(envelope(r).result).toEqual(["hi", ["GREETING"]]);
  });

  test("a bad exec.sandboxEngine is an error naming the setting and its values", async () => {
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "return 1"], { env: { MCPX_EXEC_SANDBOX_ENGINE: "v8" } });
    expectExit(r, 2);
    expect(r.stderr).toContain("MCPX_EXEC_SANDBOX_ENGINE");
    expect(r.stderr).toMatch(/quickjs.*deno/);
  });

  test("a bad exec.sandboxAllow is an error naming the key and what it takes", async () => {
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "return 1"], { env: { MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify({ read: ["relative/path"] }) } });
    expectExit(r, 2);
    expect(r.stderr).toContain("exec.sandboxAllow[0]");
    expect(r.stderr).toContain("key read");
    expect(r.stderr).toContain("absolute path");
    const typo = await mcpx(sb, ["exec", "--sandbox", "on", "return 1"], { env: { MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify({ hosts: ["x"] }) } });
    expectExit(typo, 2);
    expect(typo.stderr).toContain("unknown key");
    expect(typo.stderr).toContain("net (host or host:port");
  });

  test("--runtime bun with --sandbox on is a usage error naming both", async () => {
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "--runtime", "bun", "return 1"]);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/runtime bun.*sandbox/);
  });
});

describe("without Deno", () => {
  // a copy of the binary away from this repository's node_modules/.bin, on a PATH without deno
  const bin = join(sb.dir, "lonely", "mcpx");
  mkdirSync(join(sb.dir, "lonely"), { recursive: true });
  try {
    linkSync(MCPX, bin);
  } catch {
    copyFileSync(MCPX, bin);
    chmodSync(bin, 0o755);
  }
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const proc = Bun.spawn([bin, ...args], { cwd: sb.dir, env: { ...sb.env, PATH: "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  };

  test("a sandboxed run on the default engine works: it needs nothing but the binary", async () => {
    const r = await run(["exec", "--sandbox", "on", 'console.log("RAN in", typeof Deno); return 1']);
    expectExit(r, 0);
    expect(r.stdout).toBe("RAN in undefined\n1\n");
  });

  test("mcpx_exec through mcpx serve runs, and calls a tool through the gate, with no Deno on PATH or in any node_modules", async () => {
    const project = join(sb.dir, "lonely-project");
    writeConfig(sb, "lonely-project/.mcpx.json", { mcpServers: { fake: fakeServer() } });
    const transport = new StdioClientTransport({ command: bin, args: ["serve"], cwd: project, env: { ...sb.env, PATH: "/usr/bin:/bin" }, stderr: "pipe" });
    let said = "";
    transport.stderr?.on("data", (d: Buffer) => (said += d.toString()));
    const client = new Client({ name: "no-deno", version: "0" });
    await client.connect(transport);
    try {
      const r = (await client.callTool({
        name: "mcpx_exec",
        arguments: { source: 'const r = await fake.echo({ message: "no deno here" }); return { r, deno: typeof Deno }' },
      })) as { structuredContent?: { ok?: boolean; result?: unknown; calls?: unknown[] } };
      expect(r.structuredContent?.ok).toBe(true);
      expect(JSON.stringify(r.structuredContent?.result)).toContain("no deno here");
      expect(r.structuredContent?.result).toMatchObject({ deno: "undefined" });
      expect(r.structuredContent?.calls).toMatchObject([{ server: "fake", tool: "echo", ok: true }]);
      expect(said).not.toContain("deno");
    } finally {
      await client.close();
    }
  });

  test("a run on the Deno engine fails with exit 2, saying how to install Deno or opt out, and never runs unsandboxed", async () => {
    const r = await run(["exec", "--sandbox", "on", "--sandbox-engine", "deno", 'console.log("RAN"); return 1']);
    expectExit(r, 2);
    expect(r.stdout).not.toContain("RAN");
    expect(r.stderr).toContain("npm i -D deno");
    expect(r.stderr).toContain("--sandbox off");
    expect(r.stderr).toContain("MCPX_EXEC_SANDBOX=off");
  });

  test("an unsandboxed run still works on the embedded Bun", async () => {
    const r = await run(["exec", 'console.log("RAN")']);
    expectExit(r, 0);
    expect(r.stdout).toBe("RAN\n");
  });
});

describe("mcpx serve --sandbox off", () => {
  test("says on stderr at start that it serves unsandboxed code execution, and then runs code unsandboxed", async () => {
    const transport = new StdioClientTransport({ command: MCPX, args: ["serve", "--sandbox", "off"], cwd: sb.dir, env: sb.env, stderr: "pipe" });
    let said = "";
    transport.stderr?.on("data", (d: Buffer) => (said += d.toString()));
    const client = new Client({ name: "sandbox-off", version: "0" });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: "mcpx_exec", arguments: { source: READ } })) as { structuredContent?: { result?: unknown } };
      expect(r.structuredContent?.result).toBe("the-secret-text");
      expect(said).toContain("UNSANDBOXED");
      expect(said).toContain("exec.sandbox is off (flag:--sandbox)");
    } finally {
      await client.close();
    }
  });
});

describe("no silent installs", () => {
  // a registry that records whoever knocks: nothing may knock
  let knocks = 0;
  const registry = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => {
        knocks++;
        s.end();
      },
      data() {},
    },
  });
  const env = { NPM_CONFIG_REGISTRY: `http://127.0.0.1:${registry.port}/`, npm_config_registry: `http://127.0.0.1:${registry.port}/` };
  afterAll(() => registry.stop(true));
  const IMPORT = 'import isOdd from "is-odd-mcpx-e2e";\nexport default () => isOdd(3);\n';
  const script = sb.write("no-deps/imports.ts", IMPORT);

  for (const [label, flags] of [
    ["the embedded Bun", []],
    ["Deno", ["--runtime", "deno"]],
    ["the Deno sandbox", ["--sandbox", "on", "--sandbox-engine", "deno"]],
  ] as const) {
    test(`on ${label}, importing a package the project lacks is an error naming it and how to install it, and nothing is fetched`, async () => {
      const r = await mcpx(sb, ["run", "--json", ...flags, script], { cwd: join(sb.dir, "no-deps"), env });
      expectExit(r, 1);
      const message = envelope(r).error?.message ?? "";
      expect(message).toContain("is-odd-mcpx-e2e");
      expect(message).toContain("npm i is-odd-mcpx-e2e");
      expect(message).toContain("exec.autoInstall");
      expect(knocks).toBe(0);
    });
  }

  test("on the QuickJS sandbox, importing a package is refused naming it and the engine that can, and nothing is fetched", async () => {
    const r = await mcpx(sb, ["run", "--json", "--sandbox", "on", script], { cwd: join(sb.dir, "no-deps"), env });
    expectExit(r, 1);
    const message = envelope(r).error?.message ?? "";
    expect(message).toContain('refused "is-odd-mcpx-e2e"');
    expect(message).toContain("exec.sandboxEngine deno");
    expect(knocks).toBe(0);
  });

  test("on Deno, an npm: import is not fetched either", async () => {
    const r = await mcpx(sb, ["exec", "--json", "--runtime", "deno", 'const m = await import("npm:is-odd-mcpx-e2e"); return m.default(3)'], { env });
    expectExit(r, 1);
    expect(envelope(r).error?.message).toContain("is-odd-mcpx-e2e");
    expect(knocks).toBe(0);
  });
});

describe("files mcpx writes", () => {
  // another owner needs root to arrange; CI runs as root
  test.skipIf(process.getuid!() !== 0)("a /tmp socket directory another user made first is not used: runs pick their own, and say why", async () => {
    // an XDG_RUNTIME_DIR too deep for a socket path sends run channels to /tmp/mcpx-UID-HASH (lib/paths/dirs.ts)
    const deep = join(sb.dir, "x".repeat(100));
    const dir = join("/tmp", `mcpx-${process.getuid!()}-${Bun.hash(join(deep, "mcpx")).toString(16).slice(0, 12)}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    try {
      chownSync(dir, 4242, 4242);
      const r = await mcpx(sb, ["exec", 'console.log("ran")'], { env: { XDG_RUNTIME_DIR: deep } });
      expectExit(r, 0);
      expect(r.stdout).toBe("ran\n");
      expect(r.stderr).toContain(dir);
      expect(r.stderr).toContain("belongs to uid 4242");
      expect(statSync(dir).mode & 0o777).toBe(0o777);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the daemon refuses a daemon.token under 16 characters, naming the setting and how to make one", async () => {
    const r = await mcpx(sb, ["daemon", "--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: "x" }, killAfterMs: 20_000 });
    expectExit(r, 2);
    expect(r.stderr).toContain("daemon.token");
    expect(r.stderr).toContain("at least 16");
    expect(r.stderr).toContain("openssl rand");
    expect(existsSync(join(sb.dir, "x"))).toBe(false);
  });

  test("the daemon refuses a daemon.token of 16 spaces, or of one character repeated, saying how to make one", async () => {
    for (const token of [" ".repeat(16), "a".repeat(24)]) {
      const r = await mcpx(sb, ["daemon", "--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: token }, killAfterMs: 20_000 });
      expectExit(r, 2);
      expect(r.stderr).toContain("daemon.token");
      expect(r.stderr).toContain("openssl rand -hex 24");
    }
  });
});
