// The plugins setting resolved to plugins: each item is a path relative to the config file that
// listed it (or the working directory, from a flag or variable). Their servers may not shadow a
// configured server, and two plugins may not share a name.

import { dirname } from "node:path";
import { ConfigError } from "../config/errors.ts";
import type { ServerConfig } from "../config/servers.ts";
import type { ResolvedSettings, Sourced } from "../settings/resolve.ts";
import { loadPlugin, type Plugin } from "./manifest.ts";

/** what loading plugins reads of a command's session (lib/session/session.ts gives it) */
export interface PluginSettings {
  settings: ResolvedSettings;
  cwd: string;
  env: Record<string, string | undefined>;
}

export function loadPlugins(session: PluginSettings, servers: Readonly<Record<string, ServerConfig>>): Plugin[] {
  const items = (session.settings.get("plugins")?.items ?? []) as Sourced<string>[];
  const plugins: Plugin[] = [];
  for (const item of items) {
    const file = item.origin.startsWith("file:") ? item.origin.slice(5) : undefined;
    const p = loadPlugin(item.value, file ? dirname(file) : session.cwd, session.env, file ?? item.origin);
    if (servers[p.name])
      throw new ConfigError({
        file: p.manifest,
        key: "name",
        detail: `plugin "${p.name}" would replace the server of that name configured in ${servers[p.name]!.origin}: rename one of them`,
      });
    if (plugins.some((q) => q.name === p.name)) throw new ConfigError({ file: p.manifest, key: "name", detail: `two plugins are named "${p.name}"` });
    plugins.push(p);
  }
  return plugins;
}
