// The SDK's OAuthClientProvider that `mcpx auth NAME` drives: it holds everything in memory and
// writes it only once the flow succeeded, so a login abandoned half-way leaves the previous one
// working. provider.ts is the one every other command uses.

import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { PreRegisteredClient } from "../../config/server-config.ts";
import { clientMetadata, preRegistered, registeredLoopback, scopeUnion } from "./provider.ts";
import { metadataIssuerRefusal } from "./iss.ts";
import { issuerOf, type AuthStore } from "./store.ts";

/**
 * Everything in memory, starting from the entry's pre-registered client, else the client stored
 * for the authorization server discovery found when its registered redirect URI is the one this
 * login listens on (else the SDK registers afresh), and no stored tokens (a login always asks).
 * `commit()` writes client and tokens together (a pre-registered client is not written: it is in
 * the config).
 *
 * The loopback listener starts when the SDK first needs the redirect URI, which is after discovery:
 * it then prefers the port of the client stored for that authorization server, so a second server
 * behind it reuses the registration its first server made.
 */
export class LoginOAuthProvider implements OAuthClientProvider {
  private client?: OAuthClientInformationMixed;
  private readonly configured: boolean;
  private saved?: OAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;
  private listening?: string;
  readonly stateParam = crypto.randomUUID();

  /**
   * @param listen starts the loopback listener, on `preferredPort` when it is free; its redirect URI
   */
  constructor(
    private readonly store: AuthStore,
    private readonly listen: (preferredPort: number | undefined) => string,
    private readonly onRedirect: (url: URL) => void | Promise<void>,
    oauth?: PreRegisteredClient,
  ) {
    this.configured = oauth?.clientId !== undefined;
    this.clientMetadataUrl = oauth?.clientMetadataUrl;
    this.client = preRegistered(oauth);
  }

  /** the entry's Client ID Metadata Document URL: the SDK uses it as client_id where the authorization server accepts those */
  readonly clientMetadataUrl?: string;

  /** the issuer discovery found, else the one the server's record names */
  private issuer(): string | undefined {
    return issuerOf(this.discovery) ?? this.store.issuer();
  }

  get redirectUrl(): string {
    if (this.listening === undefined) {
      const prior = this.configured ? undefined : registeredLoopback(this.store.client(this.issuer()));
      this.listening = this.listen(prior ? Number(new URL(prior).port) : undefined);
    }
    return this.listening;
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.redirectUrl);
  }

  state(): string {
    return this.stateParam;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.client) return this.client;
    const stored = this.store.client(this.issuer());
    // a client known by its metadata document has no registered redirect URI: it is reused as it is
    const reusable = registeredLoopback(stored) === this.redirectUrl || (this.clientMetadataUrl !== undefined && stored?.client_id === this.clientMetadataUrl);
    if (reusable) this.client = stored;
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
    const wanted = this.store.record().wantedScope;
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
    // the SDK would go on to register, authorize and exchange at the endpoints this metadata names
    const refused = metadataIssuerRefusal(state);
    if (refused) throw new Error(refused);
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  /** the issuer the flow's tokens go under; undefined when it ended with none */
  finished(): string | undefined {
    return this.saved && this.client ? (issuerOf(this.discovery) ?? this.saved.issuer) : undefined;
  }

  /** writes the client and the tokens the flow ended with, under its issuer; the tokens file, or undefined when it has none to write */
  commit(): string | undefined {
    const issuer = this.finished();
    if (!this.saved || !this.client || issuer === undefined) return undefined;
    if (!this.configured) this.store.saveClient(issuer, this.client);
    this.store.saveTokens(issuer, this.saved, this.configured ? undefined : this.client);
    // the record last: until it names this issuer, a reader keeps the login it had
    this.store.saveRecord({ issuer, discovery: this.discovery, wantedScope: undefined });
    return this.store.tokensFile(issuer);
  }
}
