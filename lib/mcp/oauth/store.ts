// Where OAuth credentials for HTTP servers live: one JSON file per server URL under
// $XDG_STATE_HOME/mcpx/auth/ (0600 files in a 0700 directory), never in a config file, so a config
// can be shared or committed without a token in it. Keyed by the server's URL, not its config name:
// two configs that name one server differently share its login, and renaming an entry keeps it.
// See docs/decisions/0010-oauth.md.

import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { sha256 } from "../../paths/content-file.ts";
import { stateDir } from "../../paths/dirs.ts";

/** what one file holds; the SDK's values are kept exactly as it gave them (it stamps an issuer on them) */
export interface StoredAuth {
  /** the server URL this login is for (the file name is its hash) */
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
  /** ms timestamp of the last saveTokens, for `mcpx auth` to report; not a secret */
  savedAt?: number;
  /**
   * the scope a server asked for that the stored login lacks (its 403 insufficient_scope, a step-up):
   * the next `mcpx auth` asks for it as well, and clears it. Not a secret.
   */
  wantedScope?: string;
}

/** the directory of every stored login */
export function authDir(env: Record<string, string | undefined>): string {
  return join(stateDir(env), "auth");
}

/** one server's file in `dir`: the hash of its URL, so no URL text (a query string with a key) becomes a path */
function authFile(dir: string, serverUrl: string): string {
  return join(dir, `${sha256(serverUrl).slice(0, 32)}.json`);
}

/**
 * One server's stored login. Reads are cached against the file's mtime and size: the transport asks
 * for tokens() before every request, and another process (`mcpx auth`, a daemon's refresh) may
 * replace the file at any time.
 */
export class AuthStore {
  readonly file: string;
  private cached?: { key: string; value: StoredAuth };

  constructor(
    readonly dir: string,
    readonly serverUrl: string,
  ) {
    this.file = authFile(dir, serverUrl);
  }

  read(): StoredAuth {
    let key: string;
    try {
      const st = statSync(this.file);
      key = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      this.cached = undefined;
      return { serverUrl: this.serverUrl };
    }
    if (this.cached?.key === key) return this.cached.value;
    let value: StoredAuth;
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as StoredAuth;
      // a hash collision or a hand-copied file must not hand one server's token to another
      value = parsed && parsed.serverUrl === this.serverUrl ? parsed : { serverUrl: this.serverUrl };
    } catch {
      value = { serverUrl: this.serverUrl }; // unreadable or half-written by hand: as if logged out
    }
    this.cached = { key, value };
    return value;
  }

  /** merges `patch` into the file; written to a 0600 temp file and renamed, so a reader never sees half of it */
  write(patch: Partial<Omit<StoredAuth, "serverUrl">>): void {
    const next: StoredAuth = { ...this.read(), ...patch, serverUrl: this.serverUrl };
    for (const k of Object.keys(next) as Array<keyof StoredAuth>) if (next[k] === undefined) delete next[k];
    ensurePrivateDir(this.dir);
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, this.file);
    this.cached = undefined;
  }

  /** removes the file; true when there was one */
  remove(): boolean {
    this.cached = undefined;
    if (!existsSync(this.file)) return false;
    rmSync(this.file, { force: true });
    return true;
  }
}

/** the auth directory, created 0700, and made 0700 again if something widened it */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
