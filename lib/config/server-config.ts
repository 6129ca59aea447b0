// One configured MCP server after validation and expansion: the shape the pool starts, plugins bring
// and `mcpx ls` shows. A leaf, so validating (servers.ts) and expanding (expand.ts) both use it
// without importing each other.

import type { ConfigError } from "./errors.ts";

export type ServerConfig =
  | {
      name: string;
      kind: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      /** absolute: a relative cwd in the file is resolved against the file's directory */
      cwd?: string;
      /** the config file the entry came from */
      origin: string;
      /** the tool whose file it came from (an import kind, e.g. "cursor"); absent for mcpx's own config */
      imported?: string;
      toolFilter?: ToolFilter;
      protocolVersion?: PinnedProtocolVersion;
      /** false: the server is offered no roots (`"roots": false`); absent: the run's working directory */
      roots?: false;
    }
  | {
      name: string;
      kind: "http";
      url: string;
      headers: Record<string, string>;
      origin: string;
      imported?: string;
      /** "sse": the legacy HTTP+SSE transport ("type": "sse", or a url ending in /sse); absent: Streamable HTTP */
      transport?: "sse";
      toolFilter?: ToolFilter;
      protocolVersion?: PinnedProtocolVersion;
      roots?: false;
      /** a client registered with the authorization server beforehand ("oauth" in the entry); absent: dynamic registration */
      oauth?: PreRegisteredClient;
    };

/**
 * The protocol revisions an entry may pin (`protocolVersion`; docs/decisions/0020): the 2025
 * `initialize` handshake alone (no server/discover probe), or the 2026-07-28 era alone (no fallback).
 * Absent: the era is negotiated (lib/mcp/protocol-era.ts).
 */
export const PINNABLE_PROTOCOL_VERSIONS = ["2025-11-25", "2026-07-28"] as const;
type PinnedProtocolVersion = (typeof PINNABLE_PROTOCOL_VERSIONS)[number];

/**
 * "oauth": {"clientId": …, "clientSecret": "${VAR}"}: the client mcpx logs in as instead of registering
 * one; or {"clientMetadataUrl": "https://…"}: the Client ID Metadata Document mcpx is known by where the
 * authorization server accepts those (else it registers dynamically). Exactly one of the two.
 */
export interface PreRegisteredClient {
  clientId?: string;
  /** only with clientId; absent: a public client (PKCE only) */
  clientSecret?: string;
  clientMetadataUrl?: string;
}

/**
 * The tools the user turned on or off for this server (enabledTools/disabledTools; Codex's
 * enabled_tools/disabled_tools, Windsurf's disabledTools): the others are not listed, typed or callable.
 */
export interface ToolFilter {
  /** only these, when given */
  enabled?: string[];
  /** never these (applied after enabled) */
  disabled?: string[];
  /** the keys as the file spells them, for the error a filtered tool's call gets */
  keys: { enabled: string; disabled: string };
}

/** an entry that cannot be used: why (a ConfigError naming file:line, key and fix), and where it came from */
export interface BrokenServer {
  name: string;
  origin: string;
  imported?: string;
  error: ConfigError;
  /** not broken but withheld: its file is not trusted (lib/trust/project-trust.ts); `error` says so and how to trust it */
  untrusted?: true;
}

// "a URL ending in /sse" is the legacy HTTP+SSE convention; a query string does not change that
export function endsInSse(url: string): boolean {
  return /\/sse\/?$/.test(url.split(/[?#]/)[0]!);
}
