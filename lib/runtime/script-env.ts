// The environment a script starts from: the caller's, without mcpx's secrets, and ExecOptions.env
// over it. One function, so that a runtime started before its run (ready-runtime.ts) is started with
// exactly the environment the run would have had.

import { withoutSecrets } from "../settings/secret-env.ts";

/** the daemon's token and the model's key stay with mcpx: a script (and all it starts) never inherits them */
export function scriptEnv(base: Record<string, string | undefined>, extra: Record<string, string>): Record<string, string | undefined> {
  const env = { ...withoutSecrets(base), ...extra };
  // an empty XDG_CACHE_HOME means unset (the XDG spec), but Bun makes it the relative `bun/@t@` and
  // writes its transpiler cache into the script's working directory: the runtime gets it unset
  if (env.XDG_CACHE_HOME === "") delete env.XDG_CACHE_HOME;
  return env;
}
