// lib/mcp/oauth: the RFC 9207 iss rule (iss.ts) and the lock between processes (lock.ts).

import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { issRefusal, metadataIssuerRefusal } from "../../lib/mcp/oauth/iss.ts";
import { acquireLock } from "../../lib/mcp/oauth/lock.ts";

const discovery = (extra: Record<string, unknown> = {}): OAuthDiscoveryState =>
  ({
    authorizationServerUrl: "https://as.example/",
    authorizationServerMetadata: {
      issuer: "https://as.example",
      authorization_endpoint: "https://as.example/a",
      token_endpoint: "https://as.example/t",
      response_types_supported: ["code"],
      ...extra,
    },
  }) as OAuthDiscoveryState;

describe("metadataIssuerRefusal", () => {
  const named = (d: OAuthDiscoveryState) => ({
    ...d,
    resourceMetadata: { resource: "https://mcp.example/", authorization_servers: [d.authorizationServerUrl] },
  });
  test("metadata whose issuer is the URL it was fetched for is taken", () => {
    expect(metadataIssuerRefusal(named({ ...discovery(), authorizationServerUrl: "https://as.example" }))).toBeUndefined();
  });

  test("where the resource named its authorization server, the issuer is compared as a string", () => {
    expect(metadataIssuerRefusal(named(discovery()))).toContain('serves metadata for the issuer "https://as.example", which is not itself');
  });

  test("where it named none (a 2025-03-26 server: the SDK took its origin), the metadata is taken whatever issuer it names", () => {
    expect(metadataIssuerRefusal(discovery())).toBeUndefined();
    expect(metadataIssuerRefusal(discovery({ issuer: "https://as.example/oauth" }))).toBeUndefined();
  });
});

describe("issRefusal", () => {
  test("an iss equal to the metadata's issuer is taken, advertised or not", () => {
    expect(issRefusal("https://as.example", discovery())).toBeUndefined();
    expect(issRefusal("https://as.example", discovery({ authorization_response_iss_parameter_supported: true }))).toBeUndefined();
  });

  test("an iss is compared as a string: a trailing slash the issuer lacks is another issuer", () => {
    expect(issRefusal("https://as.example/", discovery())).toContain('the redirect\'s iss "https://as.example/" is not the issuer "https://as.example"');
  });

  test("an iss naming another server is refused, advertised or not", () => {
    for (const d of [discovery(), discovery({ authorization_response_iss_parameter_supported: true })])
      expect(issRefusal("https://evil.example", d)).toContain("mix-up attack");
  });

  test("no iss is refused only where the metadata says the server sends one", () => {
    expect(issRefusal(null, discovery())).toBeUndefined();
    expect(issRefusal(null, discovery({ authorization_response_iss_parameter_supported: true }))).toContain("carried no iss");
    // a metadata value that is not true promises nothing
    expect(issRefusal(null, discovery({ authorization_response_iss_parameter_supported: "yes" }))).toBeUndefined();
  });

  test("without metadata the iss is compared with the authorization server URL discovery used", () => {
    const bare = { authorizationServerUrl: "https://as.example/" } as OAuthDiscoveryState;
    expect(issRefusal("https://as.example/", bare)).toBeUndefined();
    expect(issRefusal("https://evil.example/", bare)).toContain("mix-up attack");
  });
});

describe("acquireLock", () => {
  const dir = mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "lock-"));
  const file = join(dir, "tokens.json.lock");
  const opts = { timeoutMs: 30_000, what: "the test" };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a free lock is taken at once, holds this pid, and its release removes it", async () => {
    const release = await acquireLock(file, opts);
    expect(readFileSync(file, "utf8").trim()).toBe(String(process.pid));
    release();
    expect(existsSync(file)).toBe(false);
  });

  test("a second taker waits until the holder releases, and is told once that it waits", async () => {
    const first = await acquireLock(file, opts);
    const told: Array<number | undefined> = [];
    let waitingSeen!: () => void;
    const waiting = new Promise<void>((r) => (waitingSeen = r));
    let got = false;
    const second = acquireLock(file, {
      ...opts,
      onWait: (pid) => {
        told.push(pid);
        waitingSeen();
      },
    }).then((release) => {
      got = true;
      return release;
    });
    await waiting;
    expect(got).toBe(false);
    first();
    (await second)();
    expect(told).toEqual([process.pid]);
  });

  test("a lock whose holder no longer runs is stale and is taken over", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    writeFileSync(file, `${gone.pid}\n`);
    const told: Array<number | undefined> = [];
    const release = await acquireLock(file, { ...opts, onWait: (pid) => told.push(pid) });
    expect(readFileSync(file, "utf8").trim()).toBe(String(process.pid));
    expect(told).toEqual([]);
    release();
  });

  test("a lock a running process holds past the bound is an error naming the file and the holder", async () => {
    writeFileSync(file, `${process.ppid}\n`);
    await expect(acquireLock(file, { ...opts, timeoutMs: 30 })).rejects.toThrow(
      `the test waited 0.03s for the lock ${file}, held by pid ${process.ppid}, and gave up: if no mcpx process is running, remove that file`,
    );
  });
});
