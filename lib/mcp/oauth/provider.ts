// The SDK's OAuthClientProvider, twice: the stored one the pool hands every HTTP transport (it reads
// and refreshes what `mcpx auth` saved, and never asks a person anything), and the login one
// `mcpx auth NAME` drives (it holds everything in memory and writes it only once the flow succeeded,
// so a login abandoned half-way leaves the previous one working). The SDK runs the flow itself
// (discovery, dynamic registration, PKCE, exchange, refresh on 401); these only keep its state.
// No runtime import of the SDK here: the pool loads this for every HTTP server, and the SDK's auth
// module loads only when the transport needs it.

import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { PreRegisteredClient, ServerConfig } from "../../config/server-config.ts";
import { McpxError } from "../../errors/mcpx-error.ts";
import { VERSION } from "../../version.ts";
import { AuthStore } from "./store.ts";

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

/** what mcpx registers itself as (dynamic client registration): a public client, PKCE, refresh tokens */
function clientMetadata(redirectUrl: string): OAuthClientMetadata {
  return {
    client_name: `mcpx ${VERSION}`,
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** the client of an entry's "oauth" as the SDK takes it; it is never written to the auth file (its secret stays in the environment) */
function preRegistered(oauth: PreRegisteredClient | undefined): OAuthClientInformationMixed | undefined {
  if (oauth?.clientId === undefined) return undefined;
  return { client_id: oauth.clientId, ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }) };
}

/** the scopes of `wanted` (space-separated, RFC 6749 §3.3) that `granted` lacks */
function missingScopes(wanted: string, granted: string): string[] {
  const have = new Set(granted.split(" ").filter(Boolean));
  return wanted.split(" ").filter((s) => s && !have.has(s));
}

/** `a` and then what `b` adds, as one scope value */
function scopeUnion(a: string | null, b: string): string {
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
 */
class StoredOAuthProvider implements OAuthClientProvider {
  private readonly store: AuthStore;
  private readonly configured?: OAuthClientInformationMixed;

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
    return registeredLoopback(this.store.read().client) ?? `http://127.0.0.1${CALLBACK_PATH}`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.configured ?? this.store.read().client;
    // the SDK would register a new client here: that is the start of a login, which is `mcpx auth`'s job
    if (!client) throw new AuthRequiredError(this.server, "it answered 401 and mcpx holds no login for it");
    return client;
  }

  // no saveClientInformation: without it the SDK can never register a client from here, not even
  // when a stored one was bound to another authorization server (it fails instead)

  tokens(): OAuthTokens | undefined {
    return this.store.read().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.write({ tokens, savedAt: Date.now() });
  }

  redirectToAuthorization(url: URL): never {
    const stored = this.store.read();
    const wanted = url.searchParams.get("scope") ?? undefined;
    if (!stored.tokens) throw new AuthRequiredError(this.server, "mcpx holds no token for it");
    // the scope the SDK would ask for now (the challenge's): kept for `mcpx auth`, which starts from a 401 and may never see this 403
    if (wanted && wanted !== stored.wantedScope) this.store.write({ wantedScope: wanted });
    const lacking = wanted && stored.tokens.scope !== undefined ? missingScopes(wanted, stored.tokens.scope) : [];
    throw new AuthRequiredError(
      this.server,
      lacking.length
        ? `it asks for scope "${wanted}", and the stored login has "${stored.tokens.scope}" (no ${lacking.join(", ")}); ` +
            `\`mcpx auth ${this.server}\` asks for it`
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
    if (scope === "all") this.store.write({ client: undefined, tokens: undefined, discovery: undefined });
    else if (scope === "client") this.store.write({ client: undefined });
    else if (scope === "tokens") this.store.write({ tokens: undefined });
    else if (scope === "discovery") this.store.write({ discovery: undefined });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const stored = this.store.read();
    // without a login there is nothing to keep it for: a call after --logout must not recreate the file
    if ((stored.client || stored.tokens) && JSON.stringify(stored.discovery) !== JSON.stringify(state)) this.store.write({ discovery: state });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.read().discovery;
  }
}

/**
 * The provider an HTTP server's transport gets, or none: an entry that sets its own Authorization
 * header has chosen a static token, and OAuth must not replace it or turn its 401 into "run mcpx auth".
 */
export function storedAuthProvider(cfg: Extract<ServerConfig, { kind: "http" }>, dir: string | undefined): OAuthClientProvider | undefined {
  if (dir === undefined || Object.keys(cfg.headers).some((h) => h.toLowerCase() === "authorization")) return undefined;
  return new StoredOAuthProvider(cfg.name, dir, cfg.url, cfg.oauth);
}

/**
 * The provider `mcpx auth` drives: everything in memory, starting from the entry's pre-registered
 * client, else the stored client when its registered redirect URI is the one this login listens on
 * (else the SDK registers afresh), and no stored tokens (a login always asks). `commit()` writes
 * client and tokens together (a pre-registered client is not written: it is in the config).
 */
export class LoginOAuthProvider implements OAuthClientProvider {
  private client?: OAuthClientInformationMixed;
  private readonly configured: boolean;
  private saved?: OAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  readonly stateParam = crypto.randomUUID();

  constructor(
    private readonly store: AuthStore,
    readonly redirectUrl: string,
    private readonly onRedirect: (url: URL) => void | Promise<void>,
    oauth?: PreRegisteredClient,
  ) {
    const stored = store.read().client;
    this.configured = oauth?.clientId !== undefined;
    this.clientMetadataUrl = oauth?.clientMetadataUrl;
    // a client known by its metadata document has no registered redirect URI: it is reused as it is
    const reusable = registeredLoopback(stored) === redirectUrl || (this.clientMetadataUrl !== undefined && stored?.client_id === this.clientMetadataUrl);
    this.client = preRegistered(oauth) ?? (reusable ? stored : undefined);
  }

  /** the entry's Client ID Metadata Document URL: the SDK uses it as client_id where the authorization server accepts those */
  readonly clientMetadataUrl?: string;

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  state(): string {
    return this.stateParam;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // a pre-registered client is only ever stamped with its issuer here, never replaced by a registration
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  /** true once the flow reached the browser */
  redirected = false;

  redirectToAuthorization(url: URL): void | Promise<void> {
    this.redirected = true;
    // a step-up another command met (StoredOAuthProvider records it): this login asks for that scope too
    const wanted = this.store.read().wantedScope;
    if (wanted) url.searchParams.set("scope", scopeUnion(url.searchParams.get("scope"), wanted));
    return this.onRedirect(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error("internal: no PKCE verifier saved before the code exchange");
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    // A pre-registered client and its flow stay: registering another is no option, so the SDK's retry
    // after invalid_client meets the same refusal, which is the error to show.
    if (this.configured && (scope === "all" || scope === "client")) return;
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** writes the client and the tokens the flow ended with; false when it has none to write */
  commit(): boolean {
    if (!this.saved || !this.client) return false;
    this.store.write({
      client: this.configured ? undefined : this.client,
      tokens: this.saved,
      discovery: this.discovery,
      savedAt: Date.now(),
      wantedScope: undefined,
    });
    return true;
  }
}
