// A plugin: an mcpx-plugin.json manifest that names one MCP server and the hooks it brings. The
// server joins the pool under the plugin's name; the hooks are in force only while that server's
// session lives (started when mcpx starts, dropped when it ends). There is no other way to add
// hooks at run time: no registration endpoint (design §1).

import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseJsonc, locateKey } from "../config/jsonc.ts";
import { ConfigError } from "../config/errors.ts";
import { parseServers, type ServerConfig } from "../config/servers.ts";
import type { Hook } from "../hooks/hook.ts";
import { parseHooks } from "../hooks/schema.ts";
import { contentHash } from "../trust/trust-store.ts";

const MANIFEST_FILE = "mcpx-plugin.json";
const KEYS = ["$schema", "name", "description", "server", "hooks"];

export interface Plugin {
  name: string;
  manifest: string;
  description?: string;
  server: ServerConfig;
  hooks: Hook[];
  /** contentHash of the manifest's text, which trusting it binds (lib/trust/project-trust.ts) */
  hash: string;
}

/** the manifest a plugins item names: a directory's mcpx-plugin.json, or the file itself */
export function manifestPath(ref: string, baseDir: string): string {
  const path = resolve(baseDir, ref);
  return existsSync(path) && statSync(path).isDirectory() ? join(path, MANIFEST_FILE) : path;
}

/** reads one plugin from a directory holding mcpx-plugin.json, or from the manifest's own path */
export function loadPlugin(ref: string, baseDir: string, env: Record<string, string | undefined>, listedIn: string): Plugin {
  const manifest = manifestPath(ref, baseDir);
  if (!existsSync(manifest)) {
    throw new ConfigError({
      file: listedIn,
      key: "plugins",
      detail: `plugin "${ref}" has no manifest: ${manifest} does not exist (a plugin is a directory with ${MANIFEST_FILE}, or that file's path)`,
    });
  }
  const text = readFileSync(manifest, "utf8");
  const data = parseJsonc(text, manifest);
  const fail = (key: string, detail: string): never => {
    throw new ConfigError({ file: manifest, ...locateKey(text, [key]), key, detail });
  };
  if (!data || typeof data !== "object" || Array.isArray(data)) return fail("", `a plugin manifest is an object with ${KEYS.slice(1).join(", ")}`);
  const m = data as Record<string, unknown>;
  for (const key of Object.keys(m)) if (!KEYS.includes(key)) fail(key, `unknown key: a manifest has ${KEYS.join(", ")}`);
  if (typeof m.name !== "string" || !/^[A-Za-z][\w-]*$/.test(m.name))
    fail("name", "a plugin needs a name of letters, digits, - and _ (it names its server in the pool)");
  const name = m.name as string;
  if (!m.server) fail("server", 'a plugin names one MCP server, as an mcpServers entry: {"command": …, "args": […]} or {"url": …}');
  const parsed = parseServers(
    { [name]: m.server },
    { file: manifest, env, locate: (p) => locateKey(text, p.slice(1).length ? ["server", ...p.slice(2)] : ["server"]) },
  );
  // a plugin is one server: a broken one is the plugin's error, not a server to skip
  const broken = parsed.broken[name];
  if (broken) throw broken.error;
  const servers = parsed.servers;
  const hooksRaw = m.hooks ?? [];
  if (!Array.isArray(hooksRaw)) fail("hooks", "hooks is a list of hook objects (docs/hooks.md)");
  const hooks = parseHooks(
    (hooksRaw as unknown[]).map((value, i) => ({ value, origin: `plugin ${name} (${manifest}) hooks[${i}]`, baseDir: dirname(manifest) })),
    { PATH: env.PATH },
  ).map((h) => ({ ...h, name: h.name.includes("#") ? `${name}:${h.name}` : h.name, plugin: name }));
  return { name, manifest, description: typeof m.description === "string" ? m.description : undefined, server: servers[name]!, hooks, hash: contentHash(text) };
}
