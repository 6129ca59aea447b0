// TCP is opt-in: loopback only, and only with daemon.token. Every request then needs the bearer
// token (compared in constant time), and --remote sends it.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_FEATURES: "1" }) } });
const TOKEN = "tcp-secret-" + Math.random().toString(36).slice(2);
let d: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  // port 0: the daemon picks a free port and prints the address it bound
  d = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
});

describe.concurrent("TCP", () => {
  test("without daemon.token the daemon refuses to start, naming the setting", async () => {
    const r = await mcpx(sb, ["daemon", "--daemon-address", "http://127.0.0.1:0"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("TCP needs daemon.token");
    expect(r.stderr).toContain("MCPX_DAEMON_TOKEN");
  });

  for (const address of ["http://0.0.0.0:7777", "http://192.168.1.4:7777", "https://127.0.0.1:7777", "tcp://127.0.0.1:1", "relative/daemon.sock"]) {
    test(`${address} is refused, naming daemon.address and the accepted forms`, async () => {
      const r = await mcpx(sb, ["daemon", "--daemon-address", address], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
      expectExit(r, 2);
      expect(r.stderr).toContain(`daemon.address (flag:--daemon-address) "${address}"`);
      expect(r.stderr).toContain("http://127.0.0.1:PORT, http://[::1]:PORT or http://localhost:PORT");
    });
  }

  test("it listens on loopback and prints the port it bound", () => {
    expect(d.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(d.address).not.toEndWith(":0");
  });

  test("a request without a bearer token is a 401", async () => {
    const res = await d.fetch("/v1/health");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
  });

  test("a wrong bearer token is a 401, on every route, known or not", async () => {
    for (const path of ["/v1/health", "/v1/settings", "/v1/nope"]) {
      expect((await d.fetch(path, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    }
    expect((await d.fetch("/v1/exec", { method: "POST", headers: { authorization: "Bearer " }, body: "{}" })).status).toBe(401);
    for (const path of ["/v1/resource", "/v1/prompt"]) {
      const body = JSON.stringify({ server: "fake", ...(path === "/v1/resource" ? { uri: "fake://note" } : {}) });
      expect((await d.fetch(path, { method: "POST", body })).status).toBe(401);
      expect((await d.fetch(path, { method: "POST", headers: { authorization: `Bearer ${TOKEN}x` }, body })).status).toBe(401);
    }
  });

  test("the approvals routes need the token too; approvals, approve and reject --remote send it", async () => {
    for (const [path, method] of [
      ["/v1/approvals", "GET"],
      ["/v1/approvals/0123456789ab/approve", "POST"],
      ["/v1/approvals/0123456789ab/reject", "POST"],
    ] as const) {
      expect((await d.fetch(path, { method })).status).toBe(401);
      expect((await d.fetch(path, { method, headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    }
    const at = ["--remote", "--daemon-address", d.address];
    const listed = await mcpx(sb, ["approvals", ...at], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    expectExit(listed, 0);
    expect(listed.stdout).toBe("no run waits for an approval\n");
    // let in, and the daemon's answer is the local command's: no such approval, exit 2
    const unknown = await mcpx(sb, ["reject", "0123456789ab", ...at], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    expectExit(unknown, 2);
    expect(unknown.stderr).toContain("no pending approval 0123456789ab");
    const wrong = await mcpx(sb, ["approve", "0123456789ab", ...at], { env: { MCPX_DAEMON_TOKEN: "nope" } });
    expectExit(wrong, 2);
    expect(wrong.stderr).toContain("needs Authorization: Bearer TOKEN");
  });

  test("the right bearer token is let in", async () => {
    const res = await d.fetch("/v1/health", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
  });

  test("--remote over TCP sends daemon.token as its bearer", async () => {
    const ok = await mcpx(sb, ["exec", "--remote", "--daemon-address", d.address, 'console.log("over tcp")'], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    expectExit(ok, 0);
    expect(ok.stdout).toBe("over tcp\n");
    const wrong = await mcpx(sb, ["exec", "--remote", "--daemon-address", d.address, "console.log(1)"], { env: { MCPX_DAEMON_TOKEN: "nope" } });
    expectExit(wrong, 2);
    expect(wrong.stderr).toContain(`the daemon at ${d.address} refused the request: this daemon listens on TCP and needs Authorization: Bearer TOKEN`);
  });

  test("resource and prompt --remote over TCP send it too; a wrong token reads nothing", async () => {
    const at = ["--daemon-address", d.address];
    const read = await mcpx(sb, ["resource", "--remote", ...at, "fake", "fake://note"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    expectExit(read, 0);
    expect(read.stdout).toBe("a note from fake\n");
    const got = await mcpx(sb, ["prompt", "--remote", ...at, "fake", "greet", "name=Ada"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
    expectExit(got, 0);
    expect(got.stdout).toBe("[user]\nHello Ada\n");
    const wrong = await mcpx(sb, ["resource", "--remote", ...at, "fake", "fake://note"], { env: { MCPX_DAEMON_TOKEN: "nope" } });
    expectExit(wrong, 2);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toContain("needs Authorization: Bearer TOKEN");
  });
});
