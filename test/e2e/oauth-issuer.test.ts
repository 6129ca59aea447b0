// OAuth as the MCP authorization spec of 2026-07-28 asks beyond the basic flow (oauth.test.ts):
// the authorization response's iss checked (RFC 9207), credentials keyed by the authorization
// server's issuer, a login stored in the earlier layout still read, and one refresh when two mcpx
// processes meet an expired token at once. Against fixtures/servers/oauth-server.ts, whose control
// endpoints switch what its authorization servers do.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCPX, sandbox, type Sandbox } from "./harness.ts";
import { authFiles, BROWSER, oauthEvents, startOAuthServer, type OAuthFixture } from "./oauth-support.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

interface World {
  sb: Sandbox;
  server: OAuthFixture;
  record: string;
  authDir: string;
  events(kind: string): ReturnType<typeof oauthEvents>;
}

/** a sandbox and a fixture of its own, stopped at the end of `body` */
async function world(body: (w: World) => Promise<void>): Promise<void> {
  const sb = sandbox();
  const record = join(sb.dir, "oauth-events.jsonl");
  const server = await startOAuthServer(sb.env, { FAKE_OAUTH_RECORD: record });
  writeConfig(sb, ".mcpx.json", { mcpServers: { notes: { url: server.url }, more: { url: `${server.origin}/mcp2` } } });
  const authDir = join(sb.env.XDG_STATE_HOME!, "mcpx", "auth");
  try {
    await body({ sb, server, record, authDir, events: (kind) => oauthEvents(record).filter((e) => e.event === kind) });
  } finally {
    await server.stop();
  }
}

const login = (w: World, name = "notes") => mcpx(w.sb, ["auth", name], { env: { BROWSER }, killAfterMs: 30_000 });
const call = (w: World, name = "notes", message = "hi") => mcpx(w.sb, ["call", `${name}.echo`, JSON.stringify({ message })], { killAfterMs: 30_000 });
const tokenFiles = (w: World) => authFiles(w.authDir).filter((f) => f.includes("/issuers/") && f.endsWith(".json") && !f.endsWith("/client.json"));
const clientFiles = (w: World) => authFiles(w.authDir).filter((f) => f.endsWith("/client.json"));

describe("the authorization response's iss (RFC 9207)", () => {
  test("a redirect whose iss names another authorization server is refused, naming both, and nothing is stored", async () => {
    await world(async (w) => {
      await w.server.control("iss/wrong");
      const r = await login(w);
      expectExit(r, 1);
      expect(r.stderr).toContain(`the redirect's iss "https://mix-up.example/" is not the issuer "${w.server.origin}/"`);
      expect(r.stderr).toContain("mix-up attack");
      // the code was never exchanged
      expect(w.events("token")).toEqual([]);
      expect(authFiles(w.authDir)).toEqual([]);
    });
  });

  test("a redirect without iss is refused when the metadata says the server always sends one", async () => {
    await world(async (w) => {
      await w.server.control("iss/missing");
      const r = await login(w);
      expectExit(r, 1);
      expect(r.stderr).toContain(
        `the redirect carried no iss, and the authorization server's metadata (issuer "${w.server.origin}/") says it always sends one`,
      );
      expect(w.events("token")).toEqual([]);
    });
  });

  test("an iss that names another server is refused even where the metadata promises none, and the right iss logs in", async () => {
    await world(async (w) => {
      await w.server.control("iss/wrong-unadvertised");
      const wrong = await login(w);
      expectExit(wrong, 1);
      expect(wrong.stderr).toContain(`the redirect's iss "https://mix-up.example/"`);
      await w.server.control("iss/right");
      const right = await login(w);
      expectExit(right, 0);
      expect(w.events("token").map((e) => e.grant)).toEqual(["authorization_code"]);
      const r = await call(w);
      expectExit(r, 0);
      expect(r.stdout).toBe("hi\n");
    });
  });
});

describe("the authorization server's metadata (RFC 8414)", () => {
  test("metadata that names another issuer than the authorization server it was fetched from is refused before anything is registered", async () => {
    await world(async (w) => {
      await w.server.control("poison-issuer");
      const r = await login(w);
      expectExit(r, 1);
      expect(r.stderr).toContain(
        `the authorization server ${w.server.origin}/ serves metadata for the issuer "https://attacker.example/", which is not itself`,
      );
      expect(w.events("register-request")).toEqual([]);
      expect(w.events("authorize")).toEqual([]);
      expect(authFiles(w.authDir)).toEqual([]);
    });
  });
});

describe("a 2025-03-26 server (no resource metadata) whose authorization server names another issuer", () => {
  test("is logged in to as before: a call first says to run mcpx auth, and after the login it succeeds and refreshes", async () => {
    await world(async (w) => {
      await w.server.control("as-2025-03-26");
      const before = await call(w);
      expectExit(before, 1);
      expect(before.stderr).toContain("Run `mcpx auth notes`");
      expectExit(await login(w), 0);
      expectExit(await call(w), 0);
      await w.server.expireTokens();
      const refreshed = await call(w);
      expectExit(refreshed, 0);
      expect(refreshed.stdout).toBe("hi\n");
      expect(w.events("token").map((e) => e.grant)).toEqual(["authorization_code", "refresh_token"]);
    });
  });
});

describe("a 2026-07-28 server that challenges only after the 2025 handshake it refuses", () => {
  test("a call says to run mcpx auth, mcpx auth logs in from the server's metadata, and the call then succeeds", async () => {
    await world(async (w) => {
      writeConfig(w.sb, ".mcpx.json", { mcpServers: { notes: { url: `${w.server.origin}/mcp26` } } });
      const before = await call(w);
      expectExit(before, 1);
      expect(before.stderr).toContain("Run `mcpx auth notes`");
      expectExit(await login(w), 0);
      expect(w.events("token").map((e) => e.grant)).toEqual(["authorization_code"]);
      const after = await call(w);
      expectExit(after, 0);
      expect(after.stdout).toBe("hi\n");
    });
  });
});

describe("credentials keyed by the authorization server's issuer", () => {
  test("two servers behind one authorization server share its client registration, and each keeps its own tokens", async () => {
    await world(async (w) => {
      expectExit(await login(w, "notes"), 0);
      expectExit(await login(w, "more"), 0);
      // one registration; both logins as that client, each for its own resource
      expect(w.events("register").length).toBe(1);
      const client = w.events("register")[0]!.client;
      expect(w.events("authorize").map((e) => [e.client, e.resource])).toEqual([
        [client, w.server.url],
        [client, `${w.server.origin}/mcp2`],
      ]);
      expect(clientFiles(w).length).toBe(1);
      expect(tokenFiles(w).length).toBe(2);
      expectExit(await call(w, "notes"), 0);
      expectExit(await call(w, "more"), 0);
      // logging out of one keeps the client the other still logs in with
      expectExit(await mcpx(w.sb, ["auth", "more", "--logout"]), 0);
      expect(clientFiles(w).length).toBe(1);
      expect(tokenFiles(w).length).toBe(1);
      expectExit(await call(w, "notes"), 0);
      expectExit(await mcpx(w.sb, ["auth", "notes", "--logout"]), 0);
      expect(authFiles(w.authDir)).toEqual([]);
    });
  });

  test("a login that must register anew (its port is taken) leaves the other server's tokens bound to the client they were issued to", async () => {
    await world(async (w) => {
      expectExit(await login(w, "notes"), 0);
      const registered = JSON.parse(readFileSync(clientFiles(w)[0]!, "utf8")).client as { client_id: string; redirect_uris: string[] };
      // something else listens on the port that client was registered with
      const squatter = Bun.serve({ hostname: "127.0.0.1", port: Number(new URL(registered.redirect_uris[0]!).port), fetch: () => new Response("taken") });
      try {
        expectExit(await login(w, "more"), 0);
      } finally {
        await squatter.stop(true);
      }
      expect(w.events("register").length).toBe(2);
      await w.server.expireTokens();
      // notes refreshes as the client its refresh token was issued to, not the newer registration
      const r = await call(w, "notes");
      expectExit(r, 0);
      expect(
        w
          .events("token")
          .filter((e) => e.grant === "refresh_token")
          .map((e) => e.client),
      ).toEqual([registered.client_id]);
      expectExit(await call(w, "more"), 0);
      expect(w.events("token-refused")).toEqual([]);
    });
  });

  test("a server that moved to another authorization server is never again sent the old one's tokens, and mcpx auth logs in with the new one", async () => {
    await world(async (w) => {
      expectExit(await login(w), 0);
      await w.server.control("move");
      const moved = await call(w);
      expectExit(moved, 1);
      expect(moved.stderr).toContain(`it now uses the authorization server ${w.server.secondAs}, and mcpx's login for it is with ${w.server.origin}/`);
      expect(moved.stderr).toContain("Run `mcpx auth notes`");
      // that call learnt of the move from the 401 to the old token; the next one sends none (neither
      // its protocol-era probe nor its 2025 handshake)
      const before = w.events("mcp").length;
      expectExit(await call(w), 1);
      const bearers = w
        .events("mcp")
        .slice(before)
        .map((e) => e.bearer);
      expect(bearers.length).toBeGreaterThan(0);
      expect(bearers.filter((b) => b !== false)).toEqual([]);
      expectExit(await login(w), 0);
      expect(w.events("register").map((e) => e.as)).toEqual([`${w.server.origin}/`, w.server.secondAs]);
      expect(w.events("token").map((e) => e.as)).toEqual([`${w.server.origin}/`, w.server.secondAs]);
      const r = await call(w);
      expectExit(r, 0);
      expect(r.stdout).toBe("hi\n");
      // each issuer keeps its own client
      expect(clientFiles(w).length).toBe(2);
    });
  });

  test("a login stored in the earlier layout (one file per server URL) keeps working, refreshes, and is moved into the new one", async () => {
    await world(async (w) => {
      expectExit(await login(w), 0);
      // what the earlier mcpx wrote: the record with the client and the tokens inside it, nothing under issuers/
      const [recordFile] = authFiles(w.authDir).filter((f) => !f.includes("/issuers/"));
      const rec = JSON.parse(readFileSync(recordFile!, "utf8"));
      const { client } = JSON.parse(readFileSync(clientFiles(w)[0]!, "utf8"));
      const { tokens, savedAt } = JSON.parse(readFileSync(tokenFiles(w)[0]!, "utf8"));
      rmSync(join(w.authDir, "issuers"), { recursive: true });
      writeFileSync(recordFile!, JSON.stringify({ serverUrl: rec.serverUrl, client, tokens, discovery: rec.discovery, savedAt }, null, 2), { mode: 0o600 });
      await w.server.expireTokens();
      const r = await call(w, "notes", "still logged in");
      expectExit(r, 0);
      expect(r.stdout).toBe("still logged in\n");
      expect(w.events("authorize").length).toBe(1); // no new login
      expect(w.events("token").map((e) => e.grant)).toEqual(["authorization_code", "refresh_token"]);
      // moved: the record keeps neither client nor tokens, and the refreshed tokens are in the issuer's files
      const after = JSON.parse(readFileSync(recordFile!, "utf8"));
      expect(after.client).toBeUndefined();
      expect(after.tokens).toBeUndefined();
      expect(after.issuer).toBe(`${w.server.origin}/`);
      expect(JSON.parse(readFileSync(clientFiles(w)[0]!, "utf8")).client.client_id).toBe(client.client_id);
      expect(JSON.parse(readFileSync(tokenFiles(w)[0]!, "utf8")).tokens.refresh_token).not.toBe(tokens.refresh_token);
    });
  });
});

describe("two mcpx processes whose access token expired at once", () => {
  test("only one redeems the refresh token; the other waits for it and uses the tokens it saved", async () => {
    await world(async (w) => {
      expectExit(await login(w), 0);
      await w.server.expireTokens();
      // the first refresh is answered only once the other process is seen waiting for the lock
      await w.server.control("hold-refresh");
      const start = () =>
        Bun.spawn([MCPX, "call", "notes.echo", '{"message":"together"}'], {
          cwd: w.sb.dir,
          env: { ...w.sb.env, MCPX_LOGGING_LEVEL: "debug" },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
      const procs = [start(), start()];
      const said = ["", ""];
      let release: Promise<void> | undefined;
      const reads = procs.map(async (p, i) => {
        const decoder = new TextDecoder();
        for await (const chunk of p.stderr as ReadableStream<Uint8Array>) {
          said[i] += decoder.decode(chunk, { stream: true });
          if (!release && said[i]!.includes("oauth: waiting for the refresh")) release = w.server.control("release");
        }
      });
      const outs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
      const codes = await Promise.all(procs.map((p) => p.exited));
      await Promise.all(reads);
      await release;
      expect(codes).toEqual([0, 0]);
      expect(outs).toEqual(["together\n", "together\n"]);
      expect(w.events("token").filter((e) => e.grant === "refresh_token").length).toBe(1);
      expect(w.events("token-refused")).toEqual([]);
      const waiter = said.findIndex((s) => s.includes("oauth: waiting for the refresh"));
      expect(waiter).not.toBe(-1);
      expect(said[waiter]).toContain('oauth: "notes" was refreshed by another process; using its tokens');
      // no lock is left behind
      expect(existsSync(`${tokenFiles(w)[0]}.lock`)).toBe(false);
    });
  });
});
