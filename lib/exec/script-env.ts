// The environment a script starts from: the caller's, without mcpx's secrets, and ExecOptions.env
// over it. One function, so that a runtime started before its run (ready-runtime.ts) is started with
// exactly the environment the run would have had.

import { withoutSecrets } from "../settings/secret-env.ts";

/** the daemon's token and the model's key stay with mcpx: a script (and all it starts) never inherits them */
export function scriptEnv(base: Record<string, string | undefined>, extra: Record<string, string>): Record<string, string | undefined> {
  return { ...withoutSecrets(base), ...extra };
}
