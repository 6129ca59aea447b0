// Where OAuth credentials for HTTP servers live, under $XDG_STATE_HOME/mcpx/auth/ (0600 files in
// 0700 directories), never in a config file, so a config can be shared or committed without a token
// in it. Credentials are keyed by the authorization server's issuer, as the authorization server
// itself keys them:
//
//   <h(server url)>.json                   the server's record: which issuer it uses (as last
//                                          discovered), the discovery, a wanted step-up scope
//   issuers/<h(issuer)>/client.json        the client last registered with that issuer, which a
//                                          login for any server it protects starts from
//   issuers/<h(issuer)>/<h(server)>.json   the tokens that issuer gave for that server, and the
//                                          client they were issued to (+ .lock while one process
//                                          refreshes them)
//
// The tokens keep their own client because a login may register anew (its port was taken): the
// other servers' tokens stay bound to the client they were issued to.
//
// A server that moves to another authorization server so never presents the old one's tokens or
// client, and two servers behind one authorization server register once. The server's record is
// keyed by its URL, not its config name: two configs that name one server differently share its
// login, and renaming an entry keeps it. A record written before this layout holds client and tokens
// itself; it is split into the files above on first read (each written only where none exists yet,
// so two processes migrating at once agree). See docs/decisions/0010-oauth.md.

import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { sha256 } from "../../paths/content-file.ts";
import { stateDir } from "../../paths/dirs.ts";

/** a server's record; client, tokens and savedAt only in a record of the earlier layout */
export interface ServerRecord {
  /** the server URL this record is for (the file name is its hash) */
  serverUrl: string;
  /** the issuer of the authorization server the server named when it was last discovered */
  issuer?: string;
  discovery?: OAuthDiscoveryState;
  /**
   * the scope a server asked for that the stored login lacks (its 403 insufficient_scope, a step-up):
   * the next `mcpx auth` asks for it as well, and clears it. Not a secret.
   */
  wantedScope?: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  savedAt?: number;
}

/** one server's tokens from one issuer; the SDK's values are kept exactly as it gave them (it stamps an issuer on them) */
export interface StoredTokens {
  issuer: string;
  serverUrl: string;
  tokens: OAuthTokens;
  /** the client they were issued to; absent for the entry's pre-registered client (it is in the config) */
  client?: OAuthClientInformationMixed;
  /** ms timestamp of the last save, for `mcpx auth` to report; not a secret */
  savedAt: number;
}

interface StoredClient {
  issuer: string;
  client: OAuthClientInformationMixed;
}

/** the directory of every stored login */
export function authDir(env: Record<string, string | undefined>): string {
  return join(stateDir(env), "auth");
}

/** a file name part: the hash of the text, so no URL text (a query string with a key) becomes a path */
const h = (text: string) => sha256(text).slice(0, 32);

/** the issuer a discovery found: the metadata's `issuer`, else the URL the SDK discovered it at */
export function issuerOf(discovery: OAuthDiscoveryState | undefined): string | undefined {
  return discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
}

/**
 * One server's stored login. Reads are cached against each file's mtime, size and inode: the
 * transport asks for tokens() before every request, and another process (`mcpx auth`, another
 * process's refresh) may replace a file at any time.
 */
export class AuthStore {
  /** the server's record */
  readonly file: string;
  private readonly cache = new Map<string, { key: string; value: unknown }>();

  constructor(
    readonly dir: string,
    readonly serverUrl: string,
  ) {
    this.file = join(dir, `${h(serverUrl)}.json`);
  }

  /** the server's record, migrated to the issuer-keyed files first when it is of the earlier layout */
  record(): ServerRecord {
    const rec = this.readJson<ServerRecord>(this.file, (v) => v.serverUrl === this.serverUrl) ?? { serverUrl: this.serverUrl };
    if (!rec.client && !rec.tokens) return rec;
    const issuer = rec.issuer ?? issuerOf(rec.discovery) ?? rec.tokens?.issuer ?? rec.client?.issuer;
    // no issuer to file them under (nothing ever discovered): read as they are
    if (!issuer) return rec;
    if (rec.client) this.createOnce(this.clientFile(issuer), { issuer, client: rec.client } satisfies StoredClient);
    if (rec.tokens)
      this.createOnce(this.tokensFile(issuer), {
        issuer,
        serverUrl: this.serverUrl,
        tokens: rec.tokens,
        client: rec.client,
        savedAt: rec.savedAt ?? 0,
      } satisfies StoredTokens);
    const { client: _c, tokens: _t, savedAt: _s, ...rest } = rec;
    const next = { ...rest, issuer };
    this.writeJson(this.file, next);
    return next;
  }

  /** the issuer the server was last seen to use */
  issuer(): string | undefined {
    const rec = this.record();
    return rec.issuer ?? issuerOf(rec.discovery);
  }

  clientFile(issuer: string): string {
    return join(this.dir, "issuers", h(issuer), "client.json");
  }

  tokensFile(issuer: string): string {
    return join(this.dir, "issuers", h(issuer), `${h(this.serverUrl)}.json`);
  }

  /** the lock beside the tokens file, held while one process refreshes or saves them (lock.ts); its directory is made first */
  tokensLock(issuer: string): string {
    const file = this.tokensFile(issuer);
    ensurePrivateDir(this.dir, join(file, ".."));
    return `${file}.lock`;
  }

  /** the client registered with `issuer` (any server's registration there) */
  client(issuer = this.issuer()): OAuthClientInformationMixed | undefined {
    if (issuer === undefined) return this.record().client;
    return this.readJson<StoredClient>(this.clientFile(issuer), (v) => v.issuer === issuer)?.client;
  }

  /** this server's tokens from `issuer` */
  tokens(issuer = this.issuer()): StoredTokens | undefined {
    if (issuer === undefined) {
      const rec = this.record();
      return rec.tokens && { issuer: "", serverUrl: this.serverUrl, tokens: rec.tokens, client: rec.client, savedAt: rec.savedAt ?? 0 };
    }
    return this.readJson<StoredTokens>(this.tokensFile(issuer), (v) => v.issuer === issuer && v.serverUrl === this.serverUrl);
  }

  /** merges `patch` into the server's record */
  saveRecord(patch: Partial<Pick<ServerRecord, "issuer" | "discovery" | "wantedScope">>): void {
    this.writeJson(this.file, { ...this.record(), ...patch, serverUrl: this.serverUrl });
  }

  /** the client the stored tokens were issued to, else the issuer's latest (what a refresh presents) */
  clientInUse(issuer = this.issuer()): OAuthClientInformationMixed | undefined {
    return this.tokens(issuer)?.client ?? this.client(issuer);
  }

  saveClient(issuer: string, client: OAuthClientInformationMixed): void {
    this.writeJson(this.clientFile(issuer), { issuer, client } satisfies StoredClient);
  }

  /** forgets a client the authorization server refused: as the issuer's latest, and as the one this server's tokens name */
  forgetClient(issuer: string, clientId: string): void {
    if (this.client(issuer)?.client_id === clientId) this.removeFile(this.clientFile(issuer));
    const t = this.tokens(issuer);
    if (t?.client?.client_id === clientId) this.writeJson(this.tokensFile(issuer), { ...t, client: undefined });
  }

  /** this server's tokens from `issuer` (undefined: forgets them), with the client they were issued to (kept when not given) */
  saveTokens(issuer: string, tokens: OAuthTokens | undefined, client = this.tokens(issuer)?.client): void {
    if (tokens) this.writeJson(this.tokensFile(issuer), { issuer, serverUrl: this.serverUrl, tokens, client, savedAt: Date.now() } satisfies StoredTokens);
    else this.removeFile(this.tokensFile(issuer));
  }

  /**
   * Forgets this server's login: its record and its tokens from every issuer, and an issuer's client
   * that no other server's tokens use any more. The files removed, [] when there were none.
   */
  remove(): string[] {
    const removed: string[] = [];
    const issuers = join(this.dir, "issuers");
    for (const d of existsSync(issuers) ? readdirSync(issuers) : []) {
      const dir = join(issuers, d);
      if (this.removeFile(join(dir, `${h(this.serverUrl)}.json`))) removed.push(join(dir, `${h(this.serverUrl)}.json`));
      const left = readdirSync(dir).filter((f) => f !== "client.json" && f.endsWith(".json"));
      if (left.length === 0 && removed.some((f) => f.startsWith(dir + "/")) && this.removeFile(join(dir, "client.json")))
        removed.push(join(dir, "client.json"));
      if (readdirSync(dir).length === 0) rmdirSync(dir);
    }
    if (existsSync(issuers) && readdirSync(issuers).length === 0) rmdirSync(issuers);
    if (this.removeFile(this.file)) removed.unshift(this.file);
    return removed;
  }

  private readJson<T>(file: string, ours: (v: T) => boolean): T | undefined {
    let key: string;
    try {
      const st = statSync(file);
      key = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      this.cache.delete(file);
      return undefined;
    }
    const hit = this.cache.get(file);
    if (hit?.key === key) return hit.value as T | undefined;
    let value: T | undefined;
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8")) as T;
      // a hash collision or a hand-copied file must not hand one server's token to another
      value = parsed && ours(parsed) ? parsed : undefined;
    } catch {
      value = undefined; // unreadable or half-written by hand: as if logged out
    }
    this.cache.set(file, { key, value });
    return value;
  }

  /** written to a 0600 temp file and renamed, so a reader never sees half of it */
  private writeJson(file: string, value: object): void {
    const next = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
    ensurePrivateDir(this.dir, join(file, ".."));
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, file);
    this.cache.delete(file);
  }

  /** writes `value` to `file` only where no file is (exclusive create): a migration never overwrites newer tokens */
  private createOnce(file: string, value: object): void {
    ensurePrivateDir(this.dir, join(file, ".."));
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch {
      return; // there already: written by this layout, or by another process migrating at the same time
    }
    try {
      writeSync(fd, JSON.stringify(value, null, 2) + "\n");
    } finally {
      closeSync(fd);
    }
  }

  private removeFile(file: string): boolean {
    this.cache.delete(file);
    if (!existsSync(file)) return false;
    rmSync(file, { force: true });
    return true;
  }
}

/** the auth directory and `sub` below it, created 0700, and made 0700 again if something widened them */
function ensurePrivateDir(root: string, sub: string): void {
  mkdirSync(sub, { recursive: true, mode: 0o700 });
  for (let d = sub; d.startsWith(root); d = join(d, "..")) {
    if ((statSync(d).mode & 0o077) !== 0) chmodSync(d, 0o700);
    if (d === root) break;
  }
}
