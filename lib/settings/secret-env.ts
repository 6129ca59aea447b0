// mcpx's secrets never reach a process it starts: one function for every child's environment.

import { SECRET_ENV_NAMES } from "./setting-names.ts";

/**
 * The variables of secret settings (the registry's `secret` rows: daemon.token, model.apiKey) stay
 * with mcpx: no script, hook process or anything they start inherits them.
 */
export function withoutSecrets(base: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...base };
  for (const name of SECRET_ENV_NAMES) delete out[name];
  return out;
}
