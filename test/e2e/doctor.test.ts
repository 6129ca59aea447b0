// mcpx doctor: one line per thing mcpx needs, each with its fix, exit 1 when one fails:
// config files and their trust, runtimes, /proc, the directories it writes, each server's start
// (bounded by mcp.startTimeout, and ended after), and --json.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fakeServer, processesWith, sandbox } from "./harness.ts";
import { expectExit, mcpx, shipped } from "./support.ts";

interface Row {
  area: string;
  subject: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

async function doctorJson(sb: ReturnType<typeof sandbox>, env: Record<string, string> = {}, cwd?: string) {
  const r = await mcpx(sb, ["doctor", "--json"], { env, ...(cwd ? { cwd } : {}) });
  return { code: r.code, stderr: r.stderr, report: JSON.parse(r.stdout) as { ok: boolean; checks: Row[] } };
}

const row = (checks: Row[], area: string, subject: string) => checks.find((c) => c.area === area && c.subject === subject);

describe("mcpx doctor", () => {
  test("a trusted config whose server starts: every row ok, exit 0, the runtimes with their versions and the server with its tool count", async () => {
    const sb = sandbox();
    const file = sb.write(".mcpx.json", JSON.stringify({ mcpServers: { fake: fakeServer() } }));
    const text = await mcpx(sb, ["doctor"]);
    expectExit(text, 0);
    expect(text.stdout).toContain(`ok    config ${file}: read; a project file, trusted as it is now\n`);
    expect(text.stdout).toMatch(/^ok {4}server fake: started, \d+ tools/m);
    expect(text.stdout).toMatch(/^ok {4}runtime deno: .*deno 2\./m);
    expect(text.stdout.endsWith("no problem found\n")).toBe(true);
    const { code, report } = await doctorJson(sb);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => `${c.area} ${c.subject}`)).toEqual([
      `config ${file}`,
      "runtime bun",
      "runtime deno",
      "runtime node",
      "system /proc",
      "dir cache",
      "dir state",
      "dir sockets",
      "server fake",
    ]);
  });

  test("a server that cannot start and a broken entry fail with their fix and exit 1; an untrusted file is a warning naming mcpx trust", async () => {
    const sb = sandbox();
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { gone: { command: "/nonexistent/server" }, bad: { command: 42 } } }));
    const repo = shipped(sb, "repo/.mcpx.json", { mcpServers: { cloned: fakeServer() } });
    const { code, report } = await doctorJson(sb, {}, join(sb.dir, "repo"));
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(row(report.checks, "server", "gone")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("/nonexistent/server"),
      fix: expect.stringContaining(".mcpx.json"),
    });
    expect(row(report.checks, "server", "bad")).toMatchObject({ status: "fail", detail: expect.stringContaining("key mcpServers.bad.command") });
    expect(row(report.checks, "config", repo)).toMatchObject({ status: "warn", fix: `review it, then \`mcpx trust ${repo}\`` });
    expect(row(report.checks, "server", "cloned")).toMatchObject({ status: "warn", fix: `review it, then \`mcpx trust ${repo}\`` });
    const text = await mcpx(sb, ["doctor"], { cwd: join(sb.dir, "repo") });
    expectExit(text, 1);
    expect(text.stdout).toMatch(/^FAIL {2}server gone: .*\(fix: /m);
    expect(text.stdout.endsWith("2 problems found\n")).toBe(true);
  });

  test("a server that never answers initialize fails within mcp.startTimeout and is ended", async () => {
    const sb = sandbox();
    const marker = `doctor-hang-${process.pid}-${Date.now()}`;
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { stuck: fakeServer({ FAKE_MCP_HANG_INIT: "1", FAKE_MCP_IGNORE_EOF: "1", DOCTOR_MARKER: marker }) } }));
    // a doctor that waited for the default 60s would be killed here instead (exit 137)
    const r = await mcpx(sb, ["doctor", "--json"], { env: { MCPX_MCP_START_TIMEOUT: "1s" }, killAfterMs: 30_000 });
    expectExit(r, 1);
    expect(row(JSON.parse(r.stdout).checks, "server", "stuck")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("did not answer initialize within 1000ms (mcp.startTimeout)"),
      fix: expect.stringContaining("mcp.startTimeout (now 1s)"),
    });
    expect(processesWith(marker)).toEqual([]);
  });

  test("a cache directory that cannot be written fails naming it and the variable to set", async () => {
    const sb = sandbox();
    const file = sb.write("not-a-dir", "x");
    const { code, report } = await doctorJson(sb, { XDG_CACHE_HOME: file });
    expect(code).toBe(1);
    expect(row(report.checks, "dir", "cache")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`${file}/mcpx cannot be written`),
      fix: "make it writable, or set XDG_CACHE_HOME to a directory that is",
    });
  });

  test("a config that does not parse is a failed row, and the checks that need no config still run", async () => {
    const sb = sandbox();
    sb.write(".mcpx.json", '{"mcpServers": {');
    const { code, report } = await doctorJson(sb);
    expect(code).toBe(1);
    expect(report.checks[0]).toMatchObject({ area: "config", status: "fail", detail: expect.stringContaining(".mcpx.json:1") });
    expect(row(report.checks, "system", "/proc")?.status).toBe("ok");
    expect(row(report.checks, "dir", "state")?.status).toBe("ok");
  });
});
