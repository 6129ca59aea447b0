// What `mcpx trust` works on (docs/decisions/0015): the project files in force in a session (mcpx's
// own, the imported tools', and the plugin manifests they list), trusting and revoking a file by its
// trust key, and the records as `mcpx trust --list` shows them.

import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError } from "../errors/usage-error.ts";
import type { ResolvedSettings, Sourced } from "../settings/resolve.ts";
import { isTrusted, trustKey, type TrustState } from "./project-trust.ts";
import { contentHash, listRecords, removeRecord, writeRecord, type TrustRecord } from "./trust-store.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Every project file in force in a session, by trust key, and whether it is trusted now.
 * `manifestPath` finds the manifest a plugins item names (lib/plugins/manifest.ts, which needs this folder).
 */
export function projectFilesInForce(
  session: { trust: TrustState; settings: ResolvedSettings; env: Env },
  manifestPath: (ref: string, baseDir: string) => string,
): Array<{ path: string; trusted: boolean }> {
  const files = new Map(session.trust.files.map((f) => [trustKey(f.path), f.trusted]));
  const project = new Set(session.trust.files.map((f) => f.path));
  // the manifests a project file lists: those of a trusted file's plugins, and those an untrusted file's withheld plugins name
  const refs: Array<{ ref: string; file: string }> = [];
  for (const item of (session.settings.get("plugins")?.items ?? []) as Sourced<string>[]) {
    const file = item.origin.startsWith("file:") ? item.origin.slice(5) : undefined;
    if (file && project.has(file)) refs.push({ ref: item.value, file });
  }
  for (const w of session.trust.withheld)
    if (w.setting === "plugins") for (const ref of [w.value].flat()) if (typeof ref === "string") refs.push({ ref, file: w.file });
  for (const { ref, file } of refs) {
    const manifest = trustKey(manifestPath(ref, dirname(file)));
    const text = readText(manifest);
    if (text !== undefined && !files.has(manifest)) files.set(manifest, isTrusted(session.env, manifest, contentHash(text)));
  }
  return [...files].map(([path, trusted]) => ({ path, trusted }));
}

/** trusts the file at `path` (relative to `cwd`) as it is now; UsageError when it is no readable file */
export function trustFile(env: Env, cwd: string, path: string): TrustRecord {
  const key = trustKey(resolve(cwd, path));
  const text = readText(key);
  if (text === undefined) throw new UsageError(`mcpx trust ${path}: ${key} is not a file that can be read: give the path of a config file or plugin manifest`);
  return writeRecord(env, key, text);
}

/** forgets the trust of `path` (relative to `cwd`); UsageError when it had none */
export function revokeFile(env: Env, cwd: string, path: string): string {
  const key = trustKey(resolve(cwd, path));
  if (!removeRecord(env, key)) throw new UsageError(`mcpx trust --revoke ${path}: ${key} is not trusted (mcpx trust --list shows what is)`);
  return key;
}

/** each record, and whether the file still holds what was trusted */
export function trustList(env: Env): Array<TrustRecord & { state: "matches" | "changed" | "missing" }> {
  return listRecords(env).map((r) => {
    const text = readText(r.path);
    return { ...r, state: text === undefined ? "missing" : contentHash(text) === r.sha256 ? "matches" : "changed" };
  });
}

function readText(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/**
 * After mcpx wrote the project file `path` at the user's command (mcpx config add, remove): a file it
 * created, or one trusted as it was before (`before`, its text then), is trusted as it is now, since
 * the one change is the user's own. A file untrusted before stays untrusted: an edit by command does
 * not make the rest of it the user's (docs/decisions/0015, amendment). Whether it is trusted now.
 */
export function trustAfterEdit(env: Env, path: string, before: string | undefined, after: string): boolean {
  const key = trustKey(path);
  if (before !== undefined && !isTrusted(env, key, contentHash(before))) return false;
  writeRecord(env, key, after);
  return true;
}
