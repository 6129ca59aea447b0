// mcpx trust [PATH] | --list | --revoke [PATH]: which project config files mcpx uses in full
// (docs/decisions/0015). Everything it does is in lib/trust.

import { out } from "../lib/util/fd-write.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openSession } from "../lib/session/session.ts";
import { projectFilesInForce, revokeFile, trustFile, trustList } from "../lib/trust/trust-files.ts";
import { manifestPath } from "../lib/plugins/manifest.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  list: { type: "boolean", description: "Show every trusted file: its path, hash, when it was trusted, and whether it still holds that" },
  revoke: { type: "boolean", description: "Take trust back from PATH (no path: from every trusted project file in force here)" },
  json: { type: "boolean", description: "Print JSON (with --list)" },
};

export default defineCommand({
  meta: { name: "trust", description: COMMAND_DESCRIPTIONS.trust },
  args: cittyArgs("trust", OWN, { name: "path", description: "a config file or plugin manifest (default: every one in force here)" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("trust", rawArgs, OWN);
    const paths = [...parsed.positionals, ...parsed.rest];
    const env = process.env;
    const cwd = process.cwd();
    if (parsed.own.list) {
      if (paths.length || parsed.own.revoke) throw new UsageError("--list takes no path and no --revoke: mcpx trust --list");
      const rows = trustList(env);
      if (parsed.own.json) out(JSON.stringify(rows, null, 2) + "\n");
      else if (rows.length === 0) out("no file is trusted\n");
      else for (const r of rows) out(`${r.path}\tsha256:${r.sha256.slice(0, 16)}\t${r.trustedAt}\t${r.state}\n`);
      return;
    }
    if (parsed.own.json) throw new UsageError("--json goes with --list");
    const here = () =>
      projectFilesInForce(
        openSession({ cwd, env, configFlag: parsed.own.config as string | undefined, flags: parsed.settings, trustWarnings: false }),
        manifestPath,
      );
    if (parsed.own.revoke) {
      const targets = paths.length
        ? paths
        : here()
            .filter((f) => f.trusted)
            .map((f) => f.path);
      for (const p of targets) out(`revoked ${revokeFile(env, cwd, p)}\n`);
      if (targets.length === 0) out("no trusted project file is in force here\n");
      return;
    }
    const targets = paths.length
      ? paths
      : here()
          .filter((f) => !f.trusted)
          .map((f) => f.path);
    for (const p of targets) {
      const r = trustFile(env, cwd, p);
      out(`trusted ${r.path} (sha256:${r.sha256.slice(0, 16)})\n`);
    }
    if (targets.length === 0) out("nothing to trust here: every project file in force is trusted\n");
  },
});
