// GET /v1/settings, /v1/settings/{path} and /v1/settings/hooks: the daemon's resolved settings as
// the same rows `mcpx settings --json` prints, and every hook in force with where it came from.
// Secrets (tokens, API keys) are shown as set or not, never by value (lib/settings/rows.ts).

import { settingRow, type SettingRow } from "../settings/rows.ts";
import { SETTINGS } from "../settings/registry.ts";
import { suggest } from "../util/did-you-mean.ts";
import { hookRow } from "../hooks/rows.ts";
import type { DaemonDeps, Handler } from "./context.ts";
import { errorResponse, json } from "./http.ts";

function settingRows(deps: DaemonDeps): SettingRow[] {
  return [...deps.session.settings.values()].map(settingRow);
}

export const settingsListRoute: Handler = (_req, { deps }) => json(settingRows(deps));

export const settingRoute: Handler = (_req, { deps, params }) => {
  const path = params.path!;
  const row = settingRows(deps).find((r) => r.path === path);
  if (row) return json(row);
  const paths = SETTINGS.map((s) => s.path);
  return errorResponse(
    404,
    "NOT_FOUND",
    `unknown setting "${path}"${suggest(path, paths)}: use one of ${paths.join(", ")} (GET ` +
      `/v1/settings lists them all; /v1/settings/hooks lists the hooks in force)`,
  );
};

/**
 * every hook in force now, in the order the gate runs them: config hooks and the hooks of plugins,
 * then the observe hooks (config, then plugins). A plugin hook's origin names the plugin and its manifest.
 */
export const hooksRoute: Handler = (_req, { deps }) =>
  json({ hooks: deps.engine.hooksInForce().map(hookRow), mcpHookServers: deps.engine.gate.policy.hookServers });
