// The plugins setting resolved to plugins: each item is a path relative to the config file that
// listed it (or the working directory, from a flag or variable). Their servers may not shadow a
// configured server, and two plugins may not share a name. A plugin a project's file lists is used
// only while its manifest is trusted too (docs/decisions/0015): a trusted .mcpx.json does not vouch
// for a manifest that changes after it was trusted.

import { dirname } from "node:path";
import { ConfigError } from "../config/errors.ts";
import type { BrokenServer, ServerConfig } from "../config/servers.ts";
import type { ResolvedSettings, Sourced } from "../settings/resolve.ts";
import { isTrusted, untrustedError, type TrustState } from "../trust/project-trust.ts";
import { loadPlugin, type Plugin } from "./manifest.ts";

/** what loading plugins reads of a command's session (lib/session/session.ts gives it) */
export interface PluginSettings {
  settings: ResolvedSettings;
  cwd: string;
  env: Record<string, string | undefined>;
  trust: TrustState;
}

/** the plugins in force, and those whose manifest is not trusted (as entries that cannot be used, with the error their use raises) */
export function loadPlugins(session: PluginSettings, servers: Readonly<Record<string, ServerConfig>>): { plugins: Plugin[]; untrusted: BrokenServer[] } {
  const items = (session.settings.get("plugins")?.items ?? []) as Sourced<string>[];
  const plugins: Plugin[] = [];
  const untrusted: BrokenServer[] = [];
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
    if (file && session.trust.files.some((f) => f.path === file) && !isTrusted(session.env, p.manifest, p.hash)) {
      const why = "a plugin starts its server and brings hooks";
      const error = untrustedError({ file: p.manifest, key: "server", why });
      untrusted.push({ name: p.name, origin: p.manifest, error, untrusted: true });
      continue;
    }
    plugins.push(p);
  }
  return { plugins, untrusted };
}
