// The OAuth-protected fixture server (fixtures/servers/oauth-server.ts) and the fake browser, for the
// e2e tests of `mcpx auth` and for the doc test's blocks marked `oauth`.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT } from "./harness.ts";

const OAUTH_SERVER = join(ROOT, "fixtures/servers/oauth-server.ts");
export const FAKE_BROWSER = join(ROOT, "fixtures/servers/fake-browser.ts");
/** what BROWSER is set to so that `mcpx auth` logs in with no person: the fake browser follows the redirects */
export const BROWSER = `${BUN} ${FAKE_BROWSER}`;

export interface OAuthFixture {
  /** the MCP endpoint, http://127.0.0.1:PORT/mcp */
  url: string;
  origin: string;
  /** the second authorization server's origin, which the resources name after move() */
  secondAs: string;
  /** every access token issued so far expires now (POST /fixture/expire) */
  expireTokens(): Promise<void>;
  /** POST /fixture/PATH: iss/MODE, hold-refresh, release, move (see the fixture's header) */
  control(path: string): Promise<void>;
  stop(): Promise<void>;
}

/** starts the fixture with knobs (FAKE_OAUTH_*); its stdin is our pipe, so it also ends if the test process dies */
export async function startOAuthServer(env: Record<string, string>, knobs: Record<string, string> = {}): Promise<OAuthFixture> {
  const proc = Bun.spawn([BUN, OAUTH_SERVER], { env: { ...env, FAKE_OAUTH_PORT: "0", ...knobs }, stdin: "pipe", stdout: "ignore", stderr: "pipe" });
  const decoder = new TextDecoder();
  let seen = "";
  let port: string | undefined;
  for await (const chunk of proc.stderr) {
    seen += decoder.decode(chunk);
    port = /listening (\d+)/.exec(seen)?.[1];
    if (port) break;
  }
  const second = /second-as (\d+)/.exec(seen)?.[1];
  if (!port || !second) throw new Error(`the OAuth fixture did not start: ${seen}`);
  const origin = `http://127.0.0.1:${port}`;
  const control = async (path: string) => {
    const res = await fetch(`${origin}/fixture/${path}`, { method: "POST" });
    if (!res.ok) throw new Error(`POST /fixture/${path}: ${res.status}`);
  };
  return {
    url: `${origin}/mcp`,
    origin,
    secondAs: `http://127.0.0.1:${second}/`,
    expireTokens: () => control("expire"),
    control,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export type OAuthEvent = {
  event: "register" | "register-request" | "authorize" | "token" | "token-refused" | "mcp";
  grant?: string;
  status?: number;
  client?: string;
  redirect?: string;
  /** the RFC 8707 resource parameter of an authorize or token request */
  resource?: string;
  /** the issuer of the authorization server that saw it */
  as?: string;
  path?: string;
  bearer?: boolean;
  /** the application_type a registration request named */
  applicationType?: unknown;
};

/** the fixture's FAKE_OAUTH_RECORD lines; [] before the first */
export function oauthEvents(file: string): OAuthEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OAuthEvent);
}

/** every file below `dir` (an auth directory), [] when there is none */
export function authFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}
