// OAuth 2.1 for HTTP servers (docs/auth.md, docs/decisions/0010-oauth.md), against a local
// OAuth-protected server built from the SDK's own server-side auth pieces
// (fixtures/servers/oauth-server.ts), with a fake browser (fixtures/servers/fake-browser.ts) as
// BROWSER that follows the printed URL to mcpx's loopback callback. The tests are one story, in order:
// before the login, the login, use, refresh, logout.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { MCPX, sandbox } from "./harness.ts";
import { authFiles, BROWSER, FAKE_BROWSER, oauthEvents, startOAuthServer, type OAuthFixture } from "./oauth-support.ts";
import { expectExit, leftoverProcesses, mcpx, parseFrames, writeConfig } from "./support.ts";

const sb = sandbox();
const record = join(sb.dir, "oauth-events.jsonl");
const opened = join(sb.dir, "browser-opened.txt");
const authDir = join(sb.env.XDG_STATE_HOME!, "mcpx", "auth");
let server: OAuthFixture;
/** the browser every mcpx run gets: a script run or a call must never start it */
const withBrowser = { BROWSER, FAKE_BROWSER_RECORD: opened };

/** the tokens files: issuers/<h(issuer)>/<h(server)>.json (lib/mcp/oauth/store.ts) */
const tokenFiles = () => authFiles(authDir).filter((f) => f.includes("/issuers/") && f.endsWith(".json") && !f.endsWith("/client.json"));
const storedTokens = () =>
  tokenFiles().map((f) => (JSON.parse(readFileSync(f, "utf8")) as { tokens?: { access_token: string; refresh_token?: string } }).tokens);
const events = (kind: string) => oauthEvents(record).filter((e) => e.event === kind);

beforeAll(async () => {
  server = await startOAuthServer(sb.env, { FAKE_OAUTH_RECORD: record });
  writeConfig(sb, ".mcpx.json", { mcpServers: { notes: { url: server.url } } });
});

afterAll(async () => {
  await server.stop();
});

describe("an HTTP server that requires OAuth", () => {
  test("a call before any login fails at once with the error that says to run mcpx auth, and no browser opens", async () => {
    const r = await mcpx(sb, ["exec", 'console.log(await notes.echo({ message: "too early" }))'], { env: withBrowser, killAfterMs: 30_000 });
    expectExit(r, 1);
    expect(r.stderr).toContain('server "notes" needs authorization');
    expect(r.stderr).toContain("Run `mcpx auth notes`");
    const call = await mcpx(sb, ["call", "notes.echo", '{"message":"too early"}'], { env: withBrowser, killAfterMs: 30_000 });
    expectExit(call, 1);
    expect(call.stderr).toContain("Run `mcpx auth notes`");
    // nobody was asked: no browser, no client registered, no authorization request
    expect(existsSync(opened)).toBe(false);
    expect(events("register")).toEqual([]);
    expect(events("authorize")).toEqual([]);
    expect(tokenFiles()).toEqual([]);
  });

  test("the error frame of that run carries the code AUTH_REQUIRED", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", 'await notes.echo({ message: "too early" })'], { env: withBrowser });
    const frames = parseFrames(r.stdout);
    const error = frames.find((f) => f.type === "error") as { error?: { code?: string; message?: string } } | undefined;
    expect(error?.error?.code).toBe("AUTH_REQUIRED");
    expect(error?.error?.message).toContain("Run `mcpx auth notes`");
    expect(frames.find((f) => f.type === "call")?.ok).toBe(false);
  });

  test("mcpx auth notes prints the URL, opens the browser, takes the loopback redirect and stores the tokens 0600 in a 0700 dir", async () => {
    const r = await mcpx(sb, ["auth", "notes"], { env: withBrowser, killAfterMs: 30_000 });
    expectExit(r, 0);
    // the URL is printed whether or not a browser opens, for a machine without one
    const printed = /\n\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)\n/.exec(r.stderr)?.[1];
    expect(printed).toBeDefined();
    const url = new URL(printed!);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const redirect = url.searchParams.get("redirect_uri")!;
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(readFileSync(opened, "utf8").trim()).toBe(printed!);
    expect(r.stderr).toContain('authorized "notes"');
    // dynamic registration with exactly the redirect URI the authorization request then used
    expect(events("register").length).toBe(1);
    expect(events("authorize").map((e) => e.redirect)).toEqual([redirect]);
    expect(events("token").map((e) => e.grant)).toEqual(["authorization_code"]);
    // RFC 8707: the resource the server's metadata names, on the authorization and the token request
    expect(events("authorize").map((e) => e.resource)).toEqual([server.url]);
    expect(events("token").map((e) => e.resource)).toEqual([server.url]);
    const files = tokenFiles();
    expect(files.length).toBe(1);
    expect(r.stderr).toContain(`tokens stored in ${files[0]}`);
    // the server's record, the issuer's client, the server's tokens from that issuer
    expect(authFiles(authDir).length).toBe(3);
    for (const f of authFiles(authDir)) expect((statSync(f).mode & 0o777).toString(8)).toBe("600");
    for (const d of [authDir, join(authDir, "issuers"), join(files[0]!, "..")]) expect((statSync(d).mode & 0o777).toString(8)).toBe("700");
    expect(storedTokens()[0]?.access_token).toBeString();
    // never in the config
    expect(readFileSync(join(sb.dir, ".mcpx.json"), "utf8")).not.toContain(storedTokens()[0]!.access_token);
    // the browser the login started has ended with it
    expect(await leftoverProcesses(FAKE_BROWSER)).toEqual([]);
  });

  test("the login registered mcpx as a native application, since its redirect is a loopback one on the person's machine", () => {
    expect(events("register-request").map((e) => e.applicationType)).toEqual(["native"]);
  });

  test("a script then calls the server's tools with the stored token, and the token is nowhere a script or a frame can see", async () => {
    const token = storedTokens()[0]!.access_token;
    const refresh = storedTokens()[0]!.refresh_token!;
    const r = await mcpx(
      sb,
      ["exec", "--output", "stream", 'console.log(await notes.echo({ message: "authorized" })); console.log(JSON.stringify(process.env))'],
      { env: withBrowser },
    );
    expectExit(r, 0);
    const out = parseFrames(r.stdout)
      .filter((f) => f.type === "stdout")
      .map((f) => String(f.data ?? f.text ?? ""))
      .join("");
    expect(r.stdout).toContain("authorized");
    for (const secret of [token, refresh]) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
      expect(out).not.toContain(secret);
    }
    const settings = await mcpx(sb, ["settings", "list", "--json"]);
    expect(settings.stdout).not.toContain(token);
    expect(existsSync(opened) && readFileSync(opened, "utf8").trim().split("\n").length).toBe(1); // only the login opened it
  });

  test("an expired access token is refreshed with the refresh token, and the new tokens are stored", async () => {
    const before = storedTokens()[0]!;
    await server.expireTokens();
    const r = await mcpx(sb, ["call", "notes.echo", '{"message":"after expiry"}'], { env: withBrowser, killAfterMs: 30_000 });
    expectExit(r, 0);
    expect(r.stdout).toBe("after expiry\n");
    expect(events("token").map((e) => e.grant)).toEqual(["authorization_code", "refresh_token"]);
    expect(events("token").map((e) => e.resource)).toEqual([server.url, server.url]);
    const after = storedTokens()[0]!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token); // the fixture rotates refresh tokens
    expect((statSync(tokenFiles()[0]!).mode & 0o777).toString(8)).toBe("600");
    expect(events("authorize").length).toBe(1); // no new login was needed
  });

  test("mcpx auth notes --logout removes the tokens, and the next call fails with the run-mcpx-auth error", async () => {
    const r = await mcpx(sb, ["auth", "notes", "--logout"]);
    expectExit(r, 0);
    expect(r.stderr).toContain('logged out of "notes"');
    expect(authFiles(authDir)).toEqual([]);
    const call = await mcpx(sb, ["call", "notes.echo", '{"message":"gone"}'], { env: withBrowser, killAfterMs: 30_000 });
    expectExit(call, 1);
    expect(call.stderr).toContain("Run `mcpx auth notes`");
    expect(authFiles(authDir)).toEqual([]); // a failed call does not recreate the files
    const again = await mcpx(sb, ["auth", "notes", "--logout"]);
    expectExit(again, 0);
    expect(again.stderr).toContain("nothing to remove");
  });

  test("mcpx auth names the mistake: an unknown server, a stdio server, no name", async () => {
    writeConfig(sb, ".mcpx.json", { mcpServers: { notes: { url: server.url }, local: { command: "true" } } });
    const typo = await mcpx(sb, ["auth", "note"]);
    expectExit(typo, 2);
    expect(typo.stderr).toContain('unknown server "note" (did you mean notes?)');
    const stdio = await mcpx(sb, ["auth", "local"]);
    expectExit(stdio, 2);
    expect(stdio.stderr).toContain("is a stdio server");
    expectExit(await mcpx(sb, ["auth"]), 2);
    writeConfig(sb, ".mcpx.json", { mcpServers: { notes: { url: server.url } } });
  });
});

describe("a browser that cannot be opened", () => {
  test("mcpx auth says it asked the opener, then that the opener failed, never that it opened a browser", async () => {
    const sb3 = sandbox();
    const fixture = await startOAuthServer(sb3.env, {});
    try {
      writeConfig(sb3, ".mcpx.json", { mcpServers: { notes: { url: fixture.url } } });
      // `false` stands for an xdg-open that found no browser: it exits 1 at once
      const proc = Bun.spawn([MCPX, "auth", "notes"], { cwd: sb3.dir, env: { ...sb3.env, BROWSER: "false" }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      let said = "";
      const decoder = new TextDecoder();
      const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
      // the login waits for a redirect that never comes: read until the failure is said, then interrupt it
      for (const until = Date.now() + 20_000; !said.includes("could not open it") && Date.now() < until; ) {
        const { done, value } = await reader.read();
        if (done) break;
        said += decoder.decode(value, { stream: true });
      }
      proc.kill("SIGINT");
      await proc.exited;
      expect(said).toContain("mcpx: asked false to open it");
      expect(said).toContain("mcpx: false could not open it (exit 1): open the URL above yourself");
      expect(said).not.toContain("opened it with");
    } finally {
      await fixture.stop();
    }
  });
});

describe("a refused login", () => {
  let denying: OAuthFixture;
  const sb2 = sandbox();
  beforeAll(async () => {
    denying = await startOAuthServer(sb2.env, { FAKE_OAUTH_DENY: "1" });
    writeConfig(sb2, ".mcpx.json", { mcpServers: { notes: { url: denying.url } } });
  });
  afterAll(() => denying.stop());

  test("mcpx auth exits 1 with the authorization server's refusal, and stores nothing", async () => {
    const r = await mcpx(sb2, ["auth", "notes"], { env: { BROWSER }, killAfterMs: 30_000 });
    expectExit(r, 1);
    expect(r.stderr).toContain("access_denied");
    expect(existsSync(join(sb2.env.XDG_STATE_HOME!, "mcpx", "auth")) ? readdirSync(join(sb2.env.XDG_STATE_HOME!, "mcpx", "auth")) : []).toEqual([]);
  });
});

describe("an HTTP server whose client was registered beforehand (the entry's oauth)", () => {
  const sb3 = sandbox();
  const record3 = join(sb3.dir, "oauth-events.jsonl");
  let known: OAuthFixture;
  beforeAll(async () => {
    known = await startOAuthServer(sb3.env, { FAKE_OAUTH_CLIENT: "mcpx-at-acme:s3cret-from-env", FAKE_OAUTH_RECORD: record3 });
    writeConfig(sb3, ".mcpx.json", { mcpServers: { notes: { url: known.url, oauth: { clientId: "mcpx-at-acme", clientSecret: "${NOTES_SECRET}" } } } });
  });
  afterAll(() => known.stop());
  const env = { BROWSER, NOTES_SECRET: "s3cret-from-env" };

  test("mcpx auth logs in as that client with the secret from the environment, registers none, and writes neither to the auth file", async () => {
    const r = await mcpx(sb3, ["auth", "notes"], { env, killAfterMs: 30_000 });
    expectExit(r, 0);
    const ev = oauthEvents(record3);
    expect(ev.filter((e) => e.event === "register")).toEqual([]);
    expect(ev.filter((e) => e.event === "token").map((e) => [e.grant, e.client])).toEqual([["authorization_code", "mcpx-at-acme"]]);
    const dir = join(sb3.env.XDG_STATE_HOME!, "mcpx", "auth");
    const text = authFiles(dir)
      .map((f) => readFileSync(f, "utf8"))
      .join("");
    expect(text).not.toContain("s3cret-from-env");
    expect(text).not.toContain('"client"');
    const who = await mcpx(sb3, ["call", "notes.whoami"], { env });
    expectExit(who, 0);
    expect(who.stdout.trim()).toBe("mcpx-at-acme");
  });

  test("a wrong secret in the environment is the authorization server's refusal, naming the server", async () => {
    const r = await mcpx(sb3, ["auth", "notes"], { env: { ...env, NOTES_SECRET: "wrong" }, killAfterMs: 30_000 });
    expectExit(r, 1);
    expect(r.stderr).toContain('server "notes"');
    expect(r.stderr).toMatch(/invalid_client|Invalid client/i);
  });
});
