// The SDK's OAuthClientProvider the pool hands every HTTP transport: it reads and refreshes what
// `mcpx auth` saved (store.ts), and never asks a person anything. `mcpx auth NAME` drives the other
// one, login-provider.ts. The SDK runs the flow itself (discovery, dynamic registration, PKCE,
// exchange, refresh on 401); these only keep its state.
// No runtime import of the SDK here: the pool loads this for every HTTP server, and the SDK's auth
// module loads only when the transport needs it.

import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { PreRegisteredClient, ServerConfig } from "../../config/server-config.ts";
import { McpxError } from "../../errors/mcpx-error.ts";
import { VERSION } from "../../version.ts";
import { metadataIssuerRefusal } from "./iss.ts";
import { refreshOnceFetch } from "./refresh-once.ts";
import { AuthStore, issuerOf } from "./store.ts";

/** the path of the loopback redirect URI `mcpx auth` registers (the port is chosen when it listens) */
export const CALLBACK_PATH = "/callback";

/**
 * A server wants authorization that only a person can give: raised inside a script run, a daemon or
 * any command but `mcpx auth`, which never open a browser; the message says to run `mcpx auth NAME`.
 */
export class AuthRequiredError extends McpxError {
  constructor(
    readonly server: string,
    why: string,
  ) {
    super(
      `server "${server}" needs authorization: ${why}. Run \`mcpx auth ${server}\` to log in (a ` +
        `browser or a printed URL); scripts and the daemon never open one`,
      "AUTH_REQUIRED",
    );
  }
}

/**
 * What mcpx registers itself as (dynamic client registration): a public client, PKCE, refresh
 * tokens; a native application (OpenID Connect Registration's application_type, which the MCP
 * authorization spec asks for), since its redirect is a loopback one on the person's own machine.
 * The SDK sends the metadata as given, so the field its type does not name still reaches the server.
 */
export function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: `mcpx ${VERSION}`,
    application_type: "native",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  } as OAuthClientMetadata;
}

/** the client of an entry's "oauth" as the SDK takes it; it is never written to the auth file (its secret stays in the environment) */
export function preRegistered(oauth: PreRegisteredClient | undefined): OAuthClientInformationMixed | undefined {
  if (oauth?.clientId === undefined) return undefined;
  return { client_id: oauth.clientId, ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }) };
}

/** the scopes of `wanted` (space-separated, RFC 6749 §3.3) that `granted` lacks */
function missingScopes(wanted: string, granted: string): string[] {
  const have = new Set(granted.split(" ").filter(Boolean));
  return wanted.split(" ").filter((s) => s && !have.has(s));
}

/** `a` and then what `b` adds, as one scope value */
export function scopeUnion(a: string | null, b: string): string {
  const first = (a ?? "").split(" ").filter(Boolean);
  return [...first, ...missingScopes(b, first.join(" "))].join(" ");
}

/** the redirect URI a stored client was registered with, if it is one of ours (a loopback callback) */
export function registeredLoopback(client: OAuthClientInformationMixed | undefined): string | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  const first = Array.isArray(uris) ? uris.find((u): u is string => typeof u === "string") : undefined;
  if (!first) return undefined;
  try {
    const u = new URL(first);
    return u.protocol === "http:" && u.hostname === "127.0.0.1" && u.pathname === CALLBACK_PATH && u.port !== "" ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The provider every HTTP server's transport gets outside `mcpx auth`. With tokens stored, the SDK
 * sends them and, on a 401, refreshes them with the refresh token and saves the new ones here. Where
 * the SDK would need a person (no client registered yet, no tokens, a refresh that was refused), this
 * throws AuthRequiredError instead: no registration, no browser, no hang.
 *
 * It keeps no discovery for the SDK: a 401 is where a server says which authorization server it
 * uses now (its challenge's resource metadata), so each one is discovered afresh. A server that
 * moved to another authorization server is then asked with that one's client and tokens, which
 * mcpx does not hold: the old one's are never presented to it.
 */
class StoredOAuthProvider implements OAuthClientProvider {
  readonly store: AuthStore;
  private readonly configured?: OAuthClientInformationMixed;
  /** set when this process's discovery found the server at another issuer than its record named */
  private moved?: { from: string; to: string };

  constructor(
    private readonly server: string,
    dir: string,
    url: string,
    oauth: PreRegisteredClient | undefined,
  ) {
    this.store = new AuthStore(dir, url);
    this.configured = preRegistered(oauth);
  }

  get redirectUrl(): string {
    // the SDK takes the refresh path only for a client with a redirect URL; the value is never visited
    return registeredLoopback(this.store.clientInUse()) ?? `http://127.0.0.1${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  private noLogin(): string {
    if (this.moved) return `it now uses the authorization server ${this.moved.to}, and mcpx's login for it is with ${this.moved.from}`;
    const issuer = this.store.issuer();
    return `it answered 401 and mcpx holds no login for it${issuer ? ` with its authorization server ${issuer}` : ""}`;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.configured ?? this.store.clientInUse();
    // the SDK would register a new client here: that is the start of a login, which is `mcpx auth`'s job
    if (!client) throw new AuthRequiredError(this.server, this.noLogin());
    return client;
  }

  // no saveClientInformation: without it the SDK can never register a client from here, not even
  // when a stored one was bound to another authorization server (it fails instead)

  tokens(): OAuthTokens | undefined {
    return this.store.tokens()?.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    const issuer = this.store.issuer() ?? tokens.issuer;
    if (issuer === undefined) throw new Error("internal: tokens to save with no authorization server known");
    this.store.saveTokens(issuer, tokens);
    if (this.store.record().issuer !== issuer) this.store.saveRecord({ issuer });
  }

  redirectToAuthorization(url: URL): never {
    const tokens = this.store.tokens()?.tokens;
    const wanted = url.searchParams.get("scope") ?? undefined;
    if (!tokens) throw new AuthRequiredError(this.server, this.moved ? this.noLogin() : "mcpx holds no token for it");
    // the scope the SDK would ask for now (the challenge's): kept for `mcpx auth`, which starts from a 401 and may never see this 403
    if (wanted && wanted !== this.store.record().wantedScope) this.store.saveRecord({ wantedScope: wanted });
    const lacking = wanted && tokens.scope !== undefined ? missingScopes(wanted, tokens.scope) : [];
    throw new AuthRequiredError(
      this.server,
      lacking.length
        ? `it asks for scope "${wanted}", and the stored login has "${tokens.scope}" (no ${lacking.join(", ")}); ` + `\`mcpx auth ${this.server}\` asks for it`
        : "its token expired and could not be refreshed",
    );
  }

  saveCodeVerifier(): void {
    // a verifier matters only to a flow that reaches the browser, which this provider never starts
  }

  codeVerifier(): string {
    throw new AuthRequiredError(this.server, "no login is in progress");
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    // the SDK calls this when the server refused what is stored (invalid_grant, invalid_client)
    const issuer = this.store.issuer();
    if (issuer === undefined) return;
    // a client the authorization server refused is refused for every server that shares it
    const inUse = this.configured ? undefined : this.store.clientInUse(issuer);
    if ((scope === "all" || scope === "client") && inUse) this.store.forgetClient(issuer, inUse.client_id);
    if (scope === "all" || scope === "tokens") this.store.saveTokens(issuer, undefined);
    if (scope === "all" || scope === "discovery") this.store.saveRecord({ discovery: undefined });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    // a refresh would be sent to the token endpoint this metadata names
    const refused = metadataIssuerRefusal(state);
    if (refused) throw new Error(refused);
    const rec = this.store.record();
    const was = rec.issuer ?? issuerOf(rec.discovery);
    // without a login there is nothing to keep it for: a call after --logout must not recreate the file
    if (was === undefined) return;
    const now = issuerOf(state) ?? was;
    if (now !== was) this.moved = { from: was, to: now };
    if (now !== rec.issuer || JSON.stringify(rec.discovery) !== JSON.stringify(state)) this.store.saveRecord({ issuer: now, discovery: state });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return undefined;
  }
}

/**
 * What an HTTP server's transport gets for OAuth, or nothing: an entry that sets its own
 * Authorization header has chosen a static token, and OAuth must not replace it or turn its 401
 * into "run mcpx auth". The fetch lets one process at a time refresh the login (refresh-once.ts).
 */
export function storedAuth(
  cfg: Extract<ServerConfig, { kind: "http" }>,
  dir: string | undefined,
  log: (message: string) => void,
): { authProvider?: OAuthClientProvider; fetch?: typeof fetch } {
  if (dir === undefined || Object.keys(cfg.headers).some((h) => h.toLowerCase() === "authorization")) return {};
  const provider = new StoredOAuthProvider(cfg.name, dir, cfg.url, cfg.oauth);
  return { authProvider: provider, fetch: refreshOnceFetch(provider.store, cfg.name, log) };
}
