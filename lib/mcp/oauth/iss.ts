// Whether an authorization server is the one it says it is. RFC 8414 §3.3: its metadata's `issuer`
// is the very identifier the metadata was looked up under, or the metadata is not its own (an
// attacker's, pointing the login at endpoints of its choosing). RFC 9207: the authorization response names the authorization server that sent it (`iss`), so a
// client talking to several of them cannot be made to send one server's code to another (a mix-up
// attack). The MCP authorization spec (2026-07-28) asks clients to check it.

import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";

/**
 * Why the redirect's `iss` refuses it, or undefined when it is accepted. `iss` must equal the
 * metadata's `issuer` exactly (RFC 9207 §2.4: a simple string comparison) whenever it is present,
 * and must be present when the metadata says `authorization_response_iss_parameter_supported`.
 */
export function issRefusal(iss: string | null, discovery: OAuthDiscoveryState | undefined): string | undefined {
  const metadata = discovery?.authorizationServerMetadata as (Record<string, unknown> & { issuer?: string }) | undefined;
  const issuer = metadata?.issuer ?? discovery?.authorizationServerUrl;
  const promised = metadata?.authorization_response_iss_parameter_supported === true;
  if (iss === null)
    return promised
      ? `the redirect carried no iss, and the authorization server's metadata (issuer "${issuer}") says it always sends one ` +
          `(authorization_response_iss_parameter_supported): the answer may not come from it, so its code is not used`
      : undefined;
  if (iss !== issuer)
    return (
      `the redirect's iss "${iss}" is not the issuer "${issuer}" of the authorization server this login asked: the answer ` +
      `may come from another authorization server (a mix-up attack, RFC 9207), so its code is not used`
    );
  return undefined;
}

/**
 * Why discovery's authorization server metadata is refused, or undefined when it is accepted: where
 * the resource named its authorization server (RFC 9728), the metadata's `issuer` must be that very
 * URL, compared as strings (RFC 8414 §3.3). Where it named none (a 2025-03-26 server: the SDK takes
 * the server's origin for it), the metadata was never looked up under an issuer the resource vouched
 * for, and those servers' metadata often names another (the origin's /oauth): it is taken as it is.
 */
export function metadataIssuerRefusal(discovery: OAuthDiscoveryState): string | undefined {
  const issuer = (discovery.authorizationServerMetadata as { issuer?: unknown } | undefined)?.issuer;
  const named = (discovery.resourceMetadata?.authorization_servers ?? []).length > 0;
  if (!named || issuer === undefined || issuer === discovery.authorizationServerUrl) return undefined;
  return (
    `the authorization server ${discovery.authorizationServerUrl} serves metadata for the issuer ${JSON.stringify(issuer)}, ` +
    `which is not itself (RFC 8414): its endpoints may be an attacker's, so mcpx does not use them`
  );
}
