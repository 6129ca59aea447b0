// The daemon's pure cores: the address parser, route matching, the 400 wording for bad bodies, the
// SSE wire format and query parsing, the idle decision, the bearer check and the de-duplication of
// per-run hooks that are already in force.

import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultSocketPath, formatAddress, parseAddress, routeUrl } from "../../lib/daemon/address.ts";
import { daemonFiles } from "../../lib/daemon/lifecycle.ts";
import { ROUTES_BEGIN, ROUTES_END, withGeneratedRoutes } from "../../lib/daemon/docs.ts";
import { withoutHooksInForce } from "../../lib/daemon/exec-route.ts";
import { bearerOk, wantsNdjson } from "../../lib/daemon/http.ts";
import { idleServers } from "../../lib/daemon/reaper.ts";
import { weakTokenReason } from "../../lib/daemon/token.ts";
import { ROUTES, matchRoute } from "../../lib/daemon/routes.ts";
import { KEEPALIVE_MS, eventsQuery, keepAliveMs, sseMessage } from "../../lib/daemon/sse.ts";
import { describeIssues, issuesSummary } from "../../lib/daemon/validate.ts";
import { ExecOptionsSchema } from "../../lib/exec/options-schema.ts";
import type { Hook } from "../../lib/hooks/hook.ts";

const ENV = { XDG_RUNTIME_DIR: "/run/user/1000" };

describe("one daemon per user and config chain", () => {
  const env = { XDG_RUNTIME_DIR: "/run/user/1000", XDG_CONFIG_HOME: "/home/ann/.config" };
  const user = "/home/ann/.config/mcpx/config.json";

  test("the user's own config alone, or none, is daemon.sock", () => {
    expect(defaultSocketPath(env, [])).toBe("/run/user/1000/mcpx/daemon.sock");
    expect(defaultSocketPath(env, [user])).toBe("/run/user/1000/mcpx/daemon.sock");
  });

  test("a chain with a project file is d-HASH.sock: the same chain the same socket, another chain another", () => {
    const a = defaultSocketPath(env, [user, "/src/a/.mcpx.json"]);
    expect(a).toMatch(/^\/run\/user\/1000\/mcpx\/d-[0-9a-f]{10}\.sock$/);
    expect(defaultSocketPath(env, [user, "/src/a/.mcpx.json"])).toBe(a);
    // the user file does not change which project it is
    expect(defaultSocketPath(env, ["/src/a/.mcpx.json"])).toBe(a);
    expect(defaultSocketPath(env, [user, "/src/b/.mcpx.json"])).not.toBe(a);
    expect(defaultSocketPath(env, [user, "/src/.mcpx.json", "/src/a/.mcpx.json"])).not.toBe(a);
    expect(parseAddress("", env, "daemon.address", false, [user, "/src/a/.mcpx.json"])).toEqual({ kind: "unix", path: a });
  });

  test("the name fits the deepest runtime directory a socket may live in", () => {
    const deep = { XDG_RUNTIME_DIR: `/r/${"x".repeat(81)}` }; // its mcpx directory is 89 bytes, the most runtimeDir keeps
    const path = defaultSocketPath(deep, ["/p/.mcpx.json"]);
    expect(path.startsWith(deep.XDG_RUNTIME_DIR)).toBe(true);
    expect(Buffer.byteLength(path)).toBeLessThanOrEqual(107);
  });

  test("the pid and log files sit beside the socket, named like it; a TCP daemon's are named by host and port", () => {
    expect(daemonFiles({ kind: "unix", path: "/run/user/1000/mcpx/d-0123456789.sock" }, env)).toEqual({
      pid: "/run/user/1000/mcpx/d-0123456789.pid",
      log: "/run/user/1000/mcpx/d-0123456789.log",
    });
    expect(daemonFiles({ kind: "unix", path: "/srv/api" }, env)).toEqual({ pid: "/srv/api.pid", log: "/srv/api.log" });
    expect(daemonFiles({ kind: "tcp", host: "::1", port: 7777 }, env)).toEqual({
      pid: "/run/user/1000/mcpx/daemon-ip6-7777.pid",
      log: "/run/user/1000/mcpx/daemon-ip6-7777.log",
    });
  });
});

describe("parseAddress", () => {
  test("empty is the default socket in the runtime directory", () => {
    expect(parseAddress("", ENV)).toEqual({ kind: "unix", path: "/run/user/1000/mcpx/daemon.sock" });
  });

  test("without XDG_RUNTIME_DIR the default socket is in the state directory, so isolated HOMEs never share one", () => {
    expect(parseAddress("", { HOME: "/home/ann" })).toEqual({ kind: "unix", path: "/home/ann/.local/state/mcpx/daemon.sock" });
    expect(parseAddress("", { HOME: "/home/ann", XDG_STATE_HOME: "/st" })).toEqual({ kind: "unix", path: "/st/mcpx/daemon.sock" });
  });

  test("a socket directory too deep for a socket path becomes a private /tmp directory, one per deep directory", () => {
    const deep = (n: string) => ({ HOME: `/home/${n.repeat(100)}` });
    const a = parseAddress("", deep("a"));
    const b = parseAddress("", deep("b"));
    if (a.kind !== "unix" || b.kind !== "unix") throw new Error("the default address is a unix socket");
    expect(a.path).toMatch(/^\/tmp\/mcpx-\d+-[0-9a-f]+\/daemon\.sock$/);
    expect(a.path).not.toBe(b.path);
    expect(parseAddress("", deep("a"))).toEqual(a);
  });

  test("an absolute path or unix:PATH is a socket", () => {
    expect(parseAddress("/tmp/x.sock", ENV)).toEqual({ kind: "unix", path: "/tmp/x.sock" });
    expect(parseAddress("unix:/tmp/x.sock", ENV)).toEqual({ kind: "unix", path: "/tmp/x.sock" });
    expect(parseAddress("unix:///tmp/x.sock", ENV)).toEqual({ kind: "unix", path: "/tmp/x.sock" });
  });

  test("the three loopback spellings are TCP; localhost binds 127.0.0.1", () => {
    expect(parseAddress("http://127.0.0.1:8080", ENV)).toEqual({ kind: "tcp", host: "127.0.0.1", port: 8080 });
    expect(parseAddress("http://[::1]:8080/", ENV)).toEqual({ kind: "tcp", host: "::1", port: 8080 });
    expect(parseAddress("http://localhost:8080", ENV)).toEqual({ kind: "tcp", host: "127.0.0.1", port: 8080 });
  });

  test("port 0 is for a daemon only", () => {
    expect(parseAddress("http://127.0.0.1:0", ENV, "daemon.address", true)).toMatchObject({ port: 0 });
    expect(() => parseAddress("http://127.0.0.1:0", ENV)).toThrow("give a client the port the daemon printed");
  });

  const refused: Array<[string, string]> = [
    ["http://0.0.0.0:80", "loopback"],
    ["http://10.0.0.1:80", "loopback"],
    ["https://127.0.0.1:80", "TLS is not served"],
    ["http://127.0.0.1", "loopback"],
    ["http://127.0.0.1:99999", "out of range"],
    ["http://127.0.0.1:80/v1", "loopback"],
    ["daemon.sock", "must be absolute"],
    ["unix:daemon.sock", "must be absolute"],
    ["ftp://127.0.0.1:21", "not a loopback URL"],
  ];
  for (const [text, why] of refused) {
    test(`"${text}" is refused: ${why}`, () => {
      expect(() => parseAddress(text, ENV, "daemon.address (env:MCPX_DAEMON_ADDRESS)")).toThrow(why);
      expect(() => parseAddress(text, ENV, "daemon.address (env:MCPX_DAEMON_ADDRESS)")).toThrow(`daemon.address (env:MCPX_DAEMON_ADDRESS) "${text}"`);
    });
  }

  test("formatAddress and routeUrl", () => {
    expect(formatAddress({ kind: "tcp", host: "::1", port: 9 })).toBe("http://[::1]:9");
    expect(routeUrl({ kind: "tcp", host: "127.0.0.1", port: 9 }, "/v1/exec")).toBe("http://127.0.0.1:9/v1/exec");
    expect(routeUrl({ kind: "unix", path: "/x.sock" }, "/v1/exec")).toBe("http://localhost/v1/exec");
  });
});

describe("matchRoute", () => {
  test("every route in the table is reached by its own path and methods", () => {
    for (const r of ROUTES) {
      const path = r.path.replace("{path}", "exec.timeout");
      for (const m of r.methods) expect(matchRoute(m, path)).toMatchObject({ kind: "route", route: r });
    }
  });

  test("/v1/settings/hooks is the hooks list, not the setting named hooks", () => {
    const m = matchRoute("GET", "/v1/settings/hooks");
    expect(m.kind === "route" && m.route.path).toBe("/v1/settings/hooks");
  });

  test("a placeholder takes one decoded segment", () => {
    expect(matchRoute("GET", "/v1/settings/script.before")).toMatchObject({ params: { path: "script.before" } });
    expect(matchRoute("GET", "/v1/settings/a%2Eb")).toMatchObject({ params: { path: "a.b" } });
    expect(matchRoute("GET", "/v1/settings/a/b")).toEqual({ kind: "none" });
  });

  test("an approval's id is one decoded segment, which the store then checks: an escaped ../ arrives as the id, a bare one never matches", () => {
    expect(matchRoute("POST", "/v1/approvals/0123456789ab/approve")).toMatchObject({ params: { id: "0123456789ab" } });
    expect(matchRoute("POST", "/v1/approvals/..%2Fx/reject")).toMatchObject({ params: { id: "../x" } });
    expect(matchRoute("POST", "/v1/approvals/../x/reject")).toEqual({ kind: "none" });
    expect(matchRoute("GET", "/v1/approvals/0123456789ab/approve")).toEqual({ kind: "method", allow: ["POST"] });
  });

  test("a known path with another method is a 405 listing the allowed ones; an unknown path is none", () => {
    expect(matchRoute("GET", "/v1/exec")).toEqual({ kind: "method", allow: ["POST"] });
    expect(matchRoute("PUT", "/mcp")).toEqual({ kind: "method", allow: ["GET", "POST", "DELETE"] });
    expect(matchRoute("GET", "/v1/exec/")).toEqual({ kind: "none" });
    expect(matchRoute("GET", "/")).toEqual({ kind: "none" });
  });

  test("no route registers hooks: nothing but GET reaches anything under /v1/settings", () => {
    for (const r of ROUTES.filter((r) => r.path.startsWith("/v1/settings"))) expect(r.methods).toEqual(["GET"]);
  });
});

describe("describeIssues", () => {
  const issues = (body: unknown) => {
    const r = v.safeParse(ExecOptionsSchema, body);
    if (r.success) throw new Error("expected a failure");
    return describeIssues(ExecOptionsSchema, r.issues);
  };

  test("an unknown key lists the keys accepted where it stood", () => {
    expect(issues({ source: "1", sorce: "x" })).toEqual([
      {
        path: "sorce",
        message:
          'unknown key "sorce": accepted keys are source, file, name, args, export, script, hooks, ' +
          "runtime, sandbox, timeoutMs, timeout, env, stdin, cwd, output, delivery, settings",
      },
    ]);
    expect(issues({ source: "1", script: { onsuccess: [] } })).toEqual([
      { path: "script.onsuccess", message: 'unknown key "onsuccess": accepted keys in script are before, prefix, onSuccess, onError, suffix' },
    ]);
  });

  test("an unknown key where an object takes none says no key is accepted, rather than listing none", () => {
    const empty = v.strictObject({ inner: v.strictObject({}) });
    const r = v.safeParse(empty, { inner: { reason: "x" }, extra: 1 });
    if (r.success) throw new Error("expected a failure");
    expect(describeIssues(empty, r.issues)).toEqual([
      { path: "inner.reason", message: 'unknown key "reason": no key is accepted in inner' },
      { path: "extra", message: 'unknown key "extra": accepted keys are inner' },
    ]);
  });

  test("a wrong type says what was expected and what came", () => {
    expect(issues({ source: "1", args: ["a", 2] })).toEqual([{ path: "args.1", message: "expected string, got 2" }]);
    expect(issues({ source: "1", runtime: "java" })).toEqual([{ path: "runtime", message: 'expected "auto" or "bun" or "deno" or "node", got "java"' }]);
  });

  test("a whole-body check has the path (body)", () => {
    expect(issues({ source: "1", file: "x" })).toEqual([{ path: "(body)", message: "give exactly one of source or file" }]);
  });

  test("the summary is one line naming each path", () => {
    expect(
      issuesSummary([
        { path: "a", message: "x" },
        { path: "b.c", message: "y" },
      ]),
    ).toBe("a: x; b.c: y");
  });
});

describe("SSE", () => {
  const event = {
    seq: 7,
    kind: "call.finished",
    time: "2026-01-01T00:00:00.000Z",
    data: { server: "s", tool: "t", ok: true, durationMs: 1, argsHash: "h" },
    server: "s",
    tool: "t",
  } as const;

  test("an event is id, event and one data line of JSON", () => {
    expect(sseMessage(event as never)).toBe(`id: 7\nevent: call.finished\ndata: ${JSON.stringify(event)}\n\n`);
  });

  test("a gap is event: gap with {from, to} and the id of its last seq", () => {
    expect(sseMessage({ kind: "gap", from: 3, to: 9, seq: 9 })).toBe('id: 9\nevent: gap\ndata: {"from":3,"to":9}\n\n');
  });

  const q = (query: string, lastEventId: string | null = null) => eventsQuery(new URL(`http://x/v1/events${query}`), lastEventId);

  test("kinds is a comma list of prefixes, repeatable; since and filters pass through", () => {
    expect(q("?kinds=call,script&kinds=server.started&since=4&server=fa*")).toEqual({
      ok: true,
      options: { kinds: ["call", "script", "server.started"], since: 4, filter: { server: "fa*" } },
    });
    expect(q("")).toEqual({ ok: true, options: {} });
  });

  test("Last-Event-ID wins over since=", () => {
    expect(q("?since=1", "40")).toEqual({ ok: true, options: { since: 40 } });
  });

  test("an unknown kind, a bad seq and an unknown parameter are refused", () => {
    expect(q("?kinds=call,nope")).toMatchObject({ ok: false, message: expect.stringContaining('"nope" matches no event kind') });
    expect(q("?since=-1")).toMatchObject({ ok: false, message: expect.stringContaining("not a sequence number") });
    expect(q("", "abc")).toMatchObject({ ok: false, message: expect.stringContaining('Last-Event-ID "abc"') });
    expect(q("?limit=3")).toMatchObject({ ok: false, message: expect.stringContaining('unknown query parameter "limit"') });
  });
});

describe("the keep-alive interval", () => {
  test("is 15 s unless MCPX_DAEMON_KEEPALIVE_MS gives milliseconds", () => {
    expect(KEEPALIVE_MS).toBe(15_000);
    expect(keepAliveMs({})).toBe(15_000);
    expect(keepAliveMs({ MCPX_DAEMON_KEEPALIVE_MS: "" })).toBe(15_000);
    expect(keepAliveMs({ MCPX_DAEMON_KEEPALIVE_MS: "200" })).toBe(200);
  });

  test("a value that is not a whole number of milliseconds > 0 is an error naming the variable, never a default", () => {
    for (const bad of ["0", "-5", "1.5", "200ms", "soon"]) {
      expect(() => keepAliveMs({ MCPX_DAEMON_KEEPALIVE_MS: bad })).toThrow(
        `MCPX_DAEMON_KEEPALIVE_MS=${bad}: give the /v1/events keep-alive interval in milliseconds`,
      );
    }
  });
});

describe("idleServers", () => {
  const s = (server: string, started: boolean, lastUsed?: number) => ({ server, started, lastUsed });

  test("started servers unused for at least the idle time, in pool order", () => {
    expect(idleServers([s("a", true, 0), s("b", true, 500), s("c", false, 0), s("d", true, 400)], 1000, 600)).toEqual(["a", "d"]);
  });

  test("an idle timeout of 0 never reaps", () => {
    expect(idleServers([s("a", true, 0)], 1_000_000, 0)).toEqual([]);
  });

  test("a server never used is not reaped by this rule (nothing has timed it yet)", () => {
    expect(idleServers([s("a", true)], 1_000_000, 1)).toEqual([]);
  });
});

describe("http helpers", () => {
  const req = (headers: Record<string, string>) => new Request("http://x/", { headers });

  test("bearerOk accepts exactly the token", () => {
    expect(bearerOk(req({ authorization: "Bearer s3cret" }), "s3cret")).toBe(true);
    expect(bearerOk(req({ authorization: "bearer  s3cret " }), "s3cret")).toBe(true);
    expect(bearerOk(req({ authorization: "Bearer s3cret2" }), "s3cret")).toBe(false);
    expect(bearerOk(req({ authorization: "Basic s3cret" }), "s3cret")).toBe(false);
    expect(bearerOk(req({}), "s3cret")).toBe(false);
  });

  test("wantsNdjson reads the Accept list", () => {
    expect(wantsNdjson(req({ accept: "application/json, application/x-ndjson;q=0.9" }))).toBe(true);
    expect(wantsNdjson(req({ accept: "application/json" }))).toBe(false);
    expect(wantsNdjson(req({}))).toBe(false);
  });
});

describe("weakTokenReason", () => {
  test("a token openssl rand -hex 24 or base64 makes is accepted, and so is the shortest random hex one", () => {
    expect(weakTokenReason("3f9a1c0e7b2d4a6f8e1b3c5d7a9f0e2b4c6d8a0f1e3b5c7d")).toBeUndefined();
    expect(weakTokenReason("q2w9ZxT+f3LkP0a/bN7mRvYc")).toBeUndefined();
    expect(weakTokenReason("0123456789abcdef")).toBeUndefined();
  });

  test("blanks, control characters, short tokens and tokens of too few different characters are refused, each saying how to make one", () => {
    const cases: Array<[string, string]> = [
      [" ".repeat(16), "whitespace"],
      ["abcdefgh ijklmnopq", "whitespace"],
      ["abcdefghijklmnop\u0007", "control"],
      ["abc123", "6 characters long"],
      ["a".repeat(32), "only 1 different character,"],
      ["ab".repeat(12), "only 2 different characters"],
      ["abcd".repeat(6), "only 4 different characters"],
    ];
    for (const [token, why] of cases) {
      const r = weakTokenReason(token);
      expect(r).toContain(why);
      expect(r).toContain("openssl rand -hex 24");
    }
  });
});

describe("withoutHooksInForce", () => {
  const hook = (name: string, argv: string[]): Hook => ({
    name,
    on: "script",
    phase: "before",
    action: { kind: "run", argv },
    when: {},
    effect: "advise",
    failure: "open",
    origin: "x",
  });

  test("a per-run hook identical to one in force is dropped; a different one is kept", () => {
    const raw = [{ name: "a" }, { name: "b" }, { name: "a2" }];
    const parsed = [hook("a", ["echo"]), hook("b", ["echo"]), hook("a", ["other"])];
    expect(withoutHooksInForce(raw, parsed, [hook("a", ["echo"])])).toEqual([{ name: "b" }, { name: "a2" }]);
  });
});

describe("docs/daemon.md", () => {
  const DOC = join(import.meta.dir, "..", "..", "docs", "daemon.md");

  test("the generated routes table is up to date with the route table", () => {
    const doc = readFileSync(DOC, "utf8");
    const fresh = withGeneratedRoutes(doc);
    if (fresh !== doc) {
      throw new Error(
        "docs/daemon.md is stale: lib/daemon/routes.ts changed. Regenerate with: bun -e 'import " +
          '{ readFileSync, writeFileSync } from "node:fs"; import { withGeneratedRoutes } from ' +
          '"./lib/daemon/docs.ts"; writeFileSync("docs/daemon.md", ' +
          'withGeneratedRoutes(readFileSync("docs/daemon.md", "utf8")))\'',
      );
    }
    expect(doc.split(ROUTES_BEGIN)).toHaveLength(2);
    expect(doc.split(ROUTES_END)).toHaveLength(2);
  });
});
