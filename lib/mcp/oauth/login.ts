// `mcpx auth NAME`: the OAuth 2.1 authorization code flow with PKCE, run by the SDK with the login
// provider: discovery (RFC 9728 then 8414), dynamic client registration when no client for this
// redirect URI is stored, the authorization URL (printed, and opened where there is a browser), the
// loopback redirect (its `iss` checked, RFC 9207), the code exchange. Only a finished flow writes
// anything.
//
// The flow starts the way the server asks for it: an SDK client connects and lists tools with the
// login provider, so the server's own 401 challenge (WWW-Authenticate: its resource_metadata URL,
// which may be anywhere, and the scope it wants) drives discovery, exactly as in the transport of
// every other command. A server that challenges nothing is logged in to from its well-known
// metadata, as asked.

import "../zod-interpreted.ts";
import type { ServerConfig } from "../../config/server-config.ts";
import { McpxError } from "../../errors/mcpx-error.ts";
import { openBrowser, type Opened } from "./browser.ts";
import { listenForCallback, type Callback } from "./callback.ts";
import { issRefusal } from "./iss.ts";
import { acquireLock, TOKENS_LOCK_TIMEOUT_MS } from "./lock.ts";
import { LoginOAuthProvider } from "./login-provider.ts";
import { AuthStore } from "./store.ts";
import { VERSION } from "../../version.ts";

export type HttpServer = Extract<ServerConfig, { kind: "http" }>;

export interface LoginOptions {
  /** the auth directory (authDir(env)) */
  dir: string;
  /** for $BROWSER, DISPLAY and PATH */
  env: Record<string, string | undefined>;
  /** a line for the person at the terminal (stderr) */
  say(line: string): void;
  /** for tests of the bound; CALLBACK_TIMEOUT_MS otherwise */
  timeoutMs?: number;
}

export interface LoginResult {
  file: string;
  /** seconds the access token lives, as the server said */
  expiresIn?: number;
  scope?: string;
}

/** logs in to one HTTP server and stores its client and tokens; throws McpxError AUTH_FAILED */
export async function login(cfg: HttpServer, opts: LoginOptions): Promise<LoginResult> {
  const store = new AuthStore(opts.dir, cfg.url);
  let provider: LoginOAuthProvider | undefined;
  let callback: Callback | undefined;
  let opened: Opened | undefined;
  const fail = (err: unknown): never => {
    throw new McpxError(
      `server "${cfg.name}" (${cfg.url}) could not be authorized: ${(err as Error)?.message ?? err}. Its config is in ${cfg.origin}`,
      "AUTH_FAILED",
    );
  };
  // started by the provider once discovery has named the authorization server (login-provider.ts)
  const listen = (port: number | undefined) => {
    callback = listenForCallback(
      () => provider!.stateParam,
      port,
      (params) => issRefusal(params.get("iss"), provider!.discoveryState()),
      opts.timeoutMs,
    );
    return callback.redirectUrl;
  };
  try {
    provider = new LoginOAuthProvider(
      store,
      listen,
      (url) => {
        const waitingAt = provider!.redirectUrl;
        opts.say(`mcpx: to authorize mcpx for "${cfg.name}", open this URL in a browser:\n\n  ${url.href}\n`);
        const opener = openBrowser(url.href, opts.env);
        opened = opener;
        // "asked", not "opened": whether the opener managed is known only once it exits, and said then
        opts.say(
          opener
            ? `mcpx: asked ${opener.program} to open it; waiting for the redirect to ${waitingAt}`
            : `mcpx: no browser to open here; waiting for the redirect to ${waitingAt} (open the URL on this machine, or forward that port)`,
        );
        void opener?.exited.then((code) => {
          if (code !== 0)
            opts.say(`mcpx: ${opener.program} could not open it (exit ${code}): open the URL above yourself; still waiting for the redirect to ${waitingAt}`);
        });
      },
      cfg.oauth,
    );
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    // the config's headers are not sent: they are for the MCP server, and the authorization server may be another party
    const challenge = cfg.transport === "sse" ? undefined : await challenged(cfg, provider).catch(fail);
    if (!challenge) {
      const started = await auth(provider, { serverUrl: cfg.url }).catch(fail);
      if (started !== "REDIRECT") fail(new Error("the server issued tokens without a login, which mcpx does not expect"));
    }
    if (!callback) fail(new Error("internal: the flow reached no redirect"));
    const code = await callback!.code.catch(fail);
    if (challenge) await challenge.finishAuth(code).catch(fail);
    else if ((await auth(provider, { serverUrl: cfg.url, authorizationCode: code }).catch(fail)) !== "AUTHORIZED")
      fail(new Error("the code exchange gave no tokens"));
    const issuer = provider.finished();
    if (issuer === undefined) fail(new Error("the code exchange gave no tokens"));
    // saved under the refresh lock: a refresh of the old login under way in another process would overwrite it
    const release = await acquireLock(store.tokensLock(issuer!), { timeoutMs: TOKENS_LOCK_TIMEOUT_MS, what: `the login to "${cfg.name}"` }).catch(fail);
    let file: string | undefined;
    try {
      file = provider.commit();
    } finally {
      release();
    }
    const tokens = provider.tokens()!;
    return { file: file!, expiresIn: tokens.expires_in, scope: tokens.scope };
  } finally {
    callback?.close();
    await opened?.settle();
  }
}

/**
 * Connects to the server with the login provider and lists its tools, which is where a server asks
 * for authorization (on initialize, or on its first request after it). The transport that met the
 * challenge, once it started the login (the provider was sent to the browser); undefined when the
 * server asked for nothing. The transport keeps the challenge's resource_metadata and scope for the
 * code exchange (its finishAuth). Its standalone GET stream is answered 405 here, without a request:
 * a second 401 there would start a second, concurrent authorization.
 */
async function challenged(cfg: HttpServer, provider: LoginOAuthProvider): Promise<{ finishAuth(code: string): Promise<void> } | undefined> {
  const [{ Client }, { StreamableHTTPClientTransport }, { UnauthorizedError }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
  ]);
  const endpoint = new URL(cfg.url).href;
  const noStream: typeof fetch = Object.assign(
    (input: string | URL | Request, init?: RequestInit) =>
      (init?.method ?? "GET") === "GET" && String(input instanceof Request ? input.url : input) === endpoint
        ? Promise.resolve(new Response(null, { status: 405 }))
        : fetch(input, init),
    { preconnect: fetch.preconnect },
  );
  const transport = new StreamableHTTPClientTransport(new URL(cfg.url), { authProvider: provider, fetch: noStream });
  const client = new Client({ name: "mcpx", version: VERSION });
  try {
    await client.connect(transport);
    await client.listTools();
    return undefined;
  } catch (err) {
    if (err instanceof UnauthorizedError && provider.redirected) return transport;
    // a 2026-07-28 server refuses the 2025 handshake (an HTTP 4xx, not a challenge) and may challenge
    // only the requests after it: as one that challenges nothing, it is logged in to from its metadata
    if (refusedHandshake(err) && !provider.redirected) return undefined;
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
}

/** a Streamable HTTP answer to initialize that is neither a challenge (401, 403) nor a server error */
function refusedHandshake(err: unknown): boolean {
  const status = (err as { code?: unknown } | null)?.code;
  return (
    /^Streamable HTTP error/.test(String((err as Error)?.message)) &&
    typeof status === "number" &&
    status >= 400 &&
    status < 500 &&
    status !== 401 &&
    status !== 403
  );
}

/** removes a server's stored login; the files it removed, [] when there was none */
export function logout(cfg: HttpServer, dir: string): string[] {
  return new AuthStore(dir, cfg.url).remove();
}
