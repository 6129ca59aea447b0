// The workspace: files a script keeps out of its caller's context through the
// `workspace` global. An agent session's lasts from one mcpx_exec to the next and is removed with the
// session (mcpx serve's process, a /mcp session ended by DELETE); any other run's (the CLI, /v1/exec)
// is removed when the run ends. Both sandbox engines reach it, and nothing else of the file system:
// names are one file name, links are never followed, and the quota (exec.workspaceQuota) holds.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fakeServer, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { expectExit, mcpx, serve, type Served, until, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
const TOKEN = "workspace-e2e-token-" + Math.random().toString(36).slice(2);
const ROOT = join(sb.env.XDG_CACHE_HOME!, "mcpx", "workspaces");
/** a 3 MB text an agent would rather not carry: lines of a log */
const BIG = "const big = Array.from({ length: 60000 }, (_, i) => `line ${i} ` + 'x'.repeat(40)).join('\\n');";

type Result = CallToolResult & { structuredContent?: { ok?: boolean; result?: unknown; error?: { message?: string; code?: string } } };

let daemon: Awaited<ReturnType<typeof startDaemon>>;
beforeAll(async () => {
  daemon = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
}, 60_000);
afterAll(() => stopDaemons());

const exec = async (s: Served, source: string, extra: Record<string, unknown> = {}) =>
  (await s.client.callTool({ name: "mcpx_exec", arguments: { source, output: "json", ...extra } })) as Result;
const workspaces = () => (existsSync(ROOT) ? readdirSync(ROOT) : []);
/** the workspace holding a file of this name (tests run concurrently: each names its files uniquely) */
const holding = (name: string) => workspaces().find((d) => existsSync(join(ROOT, d, name)));
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

describe.concurrent("an agent session's workspace", () => {
  for (const engine of ["quickjs", "deno"] as const) {
    test(`keeps a 3 MB file from one mcpx_exec to the next on ${engine}, only the size crossing the context, and is gone with the session`, async () => {
      const s = await serve(sb, { MCPX_EXEC_SANDBOX_ENGINE: engine });
      let dir: string | undefined;
      const name = unique("log");
      try {
        const wrote = await exec(s, `${BIG} return await workspace.write("${name}", big);`);
        expect(wrote.isError).toBeFalsy();
        expect(wrote.structuredContent?.result).toEqual({ name, size: expect.any(Number) });
        const size = (wrote.structuredContent!.result as { size: number }).size;
        expect(size).toBeGreaterThan(3_000_000);
        // the answer carried the size, not the file
        expect(JSON.stringify(wrote).length).toBeLessThan(2000);
        dir = holding(name);
        expect(dir).toBeDefined();
        expect(readFileSync(join(ROOT, dir!, name)).length).toBe(size);
        const read = await exec(
          s,
          `const t = await workspace.read("${name}"); return { lines: t.split("\\n").length, last: t.slice(-8), list: await workspace.list() };`,
        );
        expect(read.structuredContent?.result).toEqual({ lines: 60000, last: "x".repeat(8), list: [{ name, size }] });
      } finally {
        await s.close();
      }
      await until(() => !existsSync(join(ROOT, dir!)), `the workspace ${dir} outlived its session`);
    }, 60_000);
  }

  test("is the session's own: another serve sees an empty workspace", async () => {
    const [a, b] = await Promise.all([serve(sb), serve(sb)]);
    try {
      expect((await exec(a, 'await workspace.write("mine", "a secret"); return (await workspace.list()).length')).structuredContent?.result).toBe(1);
      expect((await exec(b, "return await workspace.list()")).structuredContent?.result).toEqual([]);
      const stolen = await exec(b, 'return await workspace.read("mine")');
      expect(stolen.isError).toBe(true);
      expect(stolen.structuredContent?.error?.message).toContain('workspace.read("mine"): no such file');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  test("a write over exec.workspaceQuota fails naming it, and writes nothing", async () => {
    const s = await serve(sb, { MCPX_EXEC_WORKSPACE_QUOTA: "1" });
    try {
      const r = await exec(s, 'await workspace.write("a", "x".repeat(600000)); await workspace.write("b", "y".repeat(600000));');
      expect(r.isError).toBe(true);
      expect(r.structuredContent?.error?.code).toBe("WORKSPACE_QUOTA");
      expect(r.structuredContent?.error?.message).toContain("over exec.workspaceQuota (1048576 bytes); nothing was written");
      expect((await exec(s, "return await workspace.list()")).structuredContent?.result).toEqual([{ name: "a", size: 600000 }]);
      // an agent cannot raise it for its run: the setting is not one a run carries
      const raised = await exec(s, "return 1", { settings: { "exec.workspaceQuota": 1000 } });
      expect(raised.isError).toBe(true);
      expect(JSON.stringify(raised.content)).toContain("exec.workspaceQuota");
    } finally {
      await s.close();
    }
  }, 60_000);

  test("names are one file name: a path, a dot file, a control character or a non-string is refused, naming the rule", async () => {
    const s = await serve(sb);
    try {
      for (const name of ["../escape", "/etc/passwd", "a/b", ".hidden", "..", "a\nb", "a\\b", "", "x".repeat(256)]) {
        const r = await exec(s, `await workspace.write(${JSON.stringify(name)}, "no")`);
        expect(r.isError).toBe(true);
        expect(r.structuredContent?.error?.message).toContain("a workspace name is one file name");
      }
      const notString = await exec(s, "await workspace.read({ toString() { return '../x' } })");
      expect(notString.structuredContent?.error?.message).toContain("workspace.read(name): the name is a string");
      expect(existsSync(join(sb.dir, "escape"))).toBe(false);
    } finally {
      await s.close();
    }
  }, 60_000);

  test("a link planted in the workspace is never followed: reading it fails, writing replaces the link and not its target", async () => {
    const s = await serve(sb);
    const target = join(sb.dir, "outside.txt");
    writeFileSync(target, "the user's file");
    try {
      const seed = unique("seed");
      await exec(s, `await workspace.write("${seed}", "1")`);
      const dir = join(ROOT, holding(seed)!);
      symlinkSync(target, join(dir, "link"));
      // known to the workspace as a file of its own, then swapped for a link behind its back
      await exec(s, 'await workspace.write("swapped", "mine")');
      const swapped = join(dir, "swapped");
      writeFileSync(swapped, "");
      await Bun.$`rm ${swapped} && ln -s ${target} ${swapped}`.quiet();
      const read = await exec(s, 'return await workspace.read("swapped")');
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read.structuredContent)).not.toContain("the user's file");
      expect((await exec(s, 'await workspace.write("swapped", "over")')).isError).toBeFalsy();
      expect(readFileSync(target, "utf8")).toBe("the user's file");
      // a name the workspace never wrote is not there for it, link or not
      expect((await exec(s, 'return await workspace.read("link")')).isError).toBe(true);
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe.concurrent("a run's own workspace", () => {
  test("the CLI's is there for the run (text and bytes) and removed when it ends", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--json",
      'await workspace.write("b.bin", new Uint8Array([0, 255, 1, 128])); await workspace.append("b.bin", new Uint8Array([7])); ' +
        'return { bytes: Array.from(await workspace.readBytes("b.bin")), gone: await workspace.remove("b.bin"), again: await workspace.remove("b.bin") }',
    ]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout).result).toEqual({ bytes: [0, 255, 1, 128, 7], gone: true, again: false });
    const left = unique("left");
    const kept = await mcpx(sb, ["exec", `await workspace.write("${left}", "behind"); return (await workspace.list()).length`]);
    expectExit(kept, 0);
    expect(kept.stdout.trim()).toBe("1");
    expect(holding(left)).toBeUndefined();
  }, 60_000);

  test("/v1/exec's is removed when the run ends, and a /mcp session's when the session is deleted", async () => {
    const w = unique("w");
    const res = await daemon.fetch("/v1/exec", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ source: `await workspace.write("${w}", "1"); return (await workspace.list()).length`, output: "json" }),
    });
    expect(((await res.json()) as { result: unknown }).result).toBe(1);
    expect(holding(w)).toBeUndefined();
    const client = new Client({ name: "workspace-e2e", version: "0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${daemon.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
    await client.connect(transport);
    const kept = unique("kept");
    const one = (await client.callTool({
      name: "mcpx_exec",
      arguments: { source: `return await workspace.write("${kept}", "across calls")`, output: "json" },
    })) as Result;
    expect(one.isError).toBeFalsy();
    const two = (await client.callTool({ name: "mcpx_exec", arguments: { source: `return await workspace.read("${kept}")`, output: "json" } })) as Result;
    expect(two.structuredContent?.result).toBe("across calls");
    const dir = holding(kept);
    expect(dir).toBeDefined();
    await transport.terminateSession();
    await client.close();
    await until(() => !existsSync(join(ROOT, dir!)), `the workspace ${dir} outlived its session`);
  }, 60_000);

  test("a dead process's workspace is removed by the next one that writes", async () => {
    mkdirSync(join(ROOT, "999999999-0123456789ab"), { recursive: true });
    writeFileSync(join(ROOT, "999999999-0123456789ab", "stale"), "from a killed serve");
    expectExit(await mcpx(sb, ["exec", 'await workspace.write("w", "1")']), 0);
    expect(existsSync(join(ROOT, "999999999-0123456789ab"))).toBe(false);
  }, 60_000);
});
