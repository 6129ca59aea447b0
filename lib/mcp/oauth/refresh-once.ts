// One refresh per refresh token across mcpx processes. Many authorization servers rotate refresh
// tokens and revoke the whole login when one is used twice, and two mcpx processes whose access
// token expired meet the server's 401 together. The SDK refreshes on that 401 through the
// transport's fetch; this fetch lets the refresh request through only under a lock beside the
// tokens file, and the process that waited finds the tokens the other one saved: it answers the
// SDK's request with them instead of redeeming the same refresh token again.

import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { acquireLock, TOKENS_LOCK_TIMEOUT_MS } from "./lock.ts";
import type { AuthStore } from "./store.ts";

/** a token request of the refresh_token grant, as the SDK sends it (a form body) */
function refreshTokenSent(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  return body instanceof URLSearchParams && body.get("grant_type") === "refresh_token" ? (body.get("refresh_token") ?? undefined) : undefined;
}

/** the transport's fetch for a server with a stored login: every request as it is, a refresh once */
export function refreshOnceFetch(store: AuthStore, server: string, log: (message: string) => void): typeof fetch {
  const once = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const sent = refreshTokenSent(init);
    const issuer = store.issuer();
    if (sent === undefined || issuer === undefined) return fetch(input, init);
    const file = store.tokensLock(issuer);
    const release = await acquireLock(file, {
      timeoutMs: TOKENS_LOCK_TIMEOUT_MS,
      what: `the refresh of server "${server}"'s login`,
      onWait: (pid) => log(`oauth: waiting for the refresh of "${server}" by pid ${pid ?? "?"} (${file})`),
    });
    try {
      const now = store.tokens(issuer)?.tokens;
      if (now?.refresh_token !== undefined && now.refresh_token !== sent) {
        // refreshed by another process while this one waited (or by a login): its tokens are ours
        log(`oauth: "${server}" was refreshed by another process; using its tokens`);
        const { issuer: _stamp, ...answer } = now;
        return Response.json(answer);
      }
      const res = await fetch(input, init);
      if (res.ok) {
        // saved before the lock goes, so the next holder sees them; the SDK saves the same again
        const got = (await res
          .clone()
          .json()
          .catch(() => undefined)) as Record<string, unknown> | undefined;
        if (typeof got?.access_token === "string") store.saveTokens(issuer, { refresh_token: sent, ...got, issuer: now?.issuer } as OAuthTokens);
      }
      return res;
    } finally {
      release();
    }
  };
  return Object.assign(once, { preconnect: fetch.preconnect });
}
