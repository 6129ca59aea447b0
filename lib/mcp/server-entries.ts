// The configured entries a pool serves, usable or broken: their names, where each came from, and
// the error that using a broken, untrusted or unknown one raises. Nothing here starts a server.

import type { BrokenServer, ServerConfig } from "../config/servers.ts";
import type { McpxError } from "../errors/mcpx-error.ts";
import { suggest } from "../util/did-you-mean.ts";
import { UpstreamError } from "./upstream-error.ts";

export class ServerEntries {
  constructor(
    readonly servers: Readonly<Record<string, ServerConfig>>,
    private readonly broken: Readonly<Record<string, BrokenServer>> = {},
  ) {}

  /** the servers that can be started (broken entries are not among them: brokenNames) */
  names(): string[] {
    return Object.keys(this.servers);
  }

  /** configured entries that cannot be used, in config order */
  brokenNames(): string[] {
    return Object.keys(this.broken);
  }

  /** where an entry came from (its file, and the tool whose file it is when imported), usable or broken */
  from(server: string): { origin: string; imported?: string } | undefined {
    const s = this.servers[server] ?? this.broken[server];
    return s && { origin: s.origin, ...(s.imported ? { imported: s.imported } : {}) };
  }

  /** a broken entry's own error message (its ConfigError), as the config warning gave it */
  brokenReason(server: string): string | undefined {
    return this.broken[server]?.error.message;
  }

  /** whether an entry is withheld because its file is not trusted (not started, not broken) */
  untrusted(server: string): boolean {
    return this.broken[server]?.untrusted === true;
  }

  /**
   * Why a broken entry cannot be used, as the error its use raises; undefined for any other name. An
   * entry of an untrusted file raises its own ConfigError (exit 2), which says how to trust the file.
   */
  brokenError(server: string): McpxError | undefined {
    const b = this.broken[server];
    if (!b || this.servers[server]) return undefined;
    if (b.untrusted) return b.error;
    return new UpstreamError(
      `server "${server}" cannot be used: its entry${b.imported ? ` (from ${b.imported})` : ""} is broken: ${b.error.message}`,
      server,
      "UPSTREAM_START",
    );
  }

  /** the entry a server is started from, or the error of a broken or unknown name */
  protected entry(server: string): ServerConfig {
    const broken = this.brokenError(server);
    if (broken) throw broken;
    const cfg = this.servers[server];
    if (!cfg)
      throw new UpstreamError(
        `unknown server "${server}"${suggest(server, this.names())}: configured servers ` +
          `are ${this.names().join(", ") || "none"} (mcpServers in your config; see mcpx ls)`,
        server,
        "UNKNOWN_SERVER",
      );
    return cfg;
  }
}
