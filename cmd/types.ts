// mcpx types SERVER[.TOOL]: the TypeScript declarations a script sees for a server or one tool.

import { featuresNote, renderToolTypes } from "../lib/codegen/declarations.ts";
import { featureCounts } from "../lib/mcp/catalogue.ts";
import { resolveName } from "../lib/mcp/tool-names.ts";
import { findTool, pickTool } from "../lib/mcp/tool-call.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { remoteCatalogue } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { out } from "../lib/util/fd-write.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openEngine } from "../lib/session/engine.ts";
import { terminalAnswerer } from "../lib/session/terminal-answers.ts";
import { refuseAdHocRemote, sessionWithAdHoc } from "./ad-hoc.ts";
import { AD_HOC_FLAGS } from "./own-flags.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";

const OWN: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  remote: { type: "boolean", description: "Read the tools of the daemon at daemon.address (mcpx daemon), printed as a local types prints them" },
};

export default defineCommand({
  meta: { name: "types", description: COMMAND_DESCRIPTIONS.types },
  args: cittyArgs("types", OWN, { name: "target", description: "SERVER or SERVER.TOOL" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("types", rawArgs, OWN);
    const [target, ...extra] = parsed.positionals;
    if (!target || extra.length) throw new UsageError("usage: mcpx types SERVER[.TOOL]");
    const session = sessionWithAdHoc(parsed);
    if (wantsDaemon(parsed.own, session)) {
      refuseAdHocRemote(parsed.own);
      const { servers } = await remoteCatalogue(session, "types", undefined, false);
      const { server, toolName } = typesTarget(target, servers);
      const row = (await remoteCatalogue(session, "types", server)).rows[0]!;
      if (row.error !== undefined) throw new McpxError(row.error, "UPSTREAM_START");
      const tool = toolName === undefined ? undefined : pickTool(server, toolName, row.tools!).name;
      out(renderToolTypes({ name: server, tools: row.tools! }, tool) + "\n");
      if (tool === undefined && row.counts) out(featuresNote(server, row.counts));
      return;
    }
    const engine = openEngine(session, {
      calls: hookCalls(session),
      // declared as `mcpx call` on this terminal declares it, so the tools listed are the ones it can call
      answers: terminalAnswerer(session.env),
      status: statusLine(session.env),
      untrustedPlugins: "list",
    });
    const pool = engine.pool;
    try {
      // the configured servers and those plugins bring
      const { server, toolName } = typesTarget(target, pool.names());
      const tools = await pool.visibleTools(server);
      const tool = toolName === undefined ? undefined : (await findTool(pool, server, toolName)).name;
      out(renderToolTypes({ name: server, tools }, tool) + "\n");
      const counts = tool === undefined ? await featureCounts(pool, server) : undefined;
      if (counts) out(featuresNote(server, counts));
    } finally {
      await engine.close();
    }
  },
});

/** SERVER[.TOOL] against the server names: a server name may itself contain dots, and the longest configured name that prefixes the target wins */
function typesTarget(target: string, names: string[]): { server: string; toolName?: string } {
  const server =
    names.filter((n) => target === n || target.startsWith(n + ".")).sort((a, b) => b.length - a.length)[0] ?? resolveName(target.split(".")[0]!, names);
  if (!server)
    throw new UsageError(`unknown server in "${target}"${suggest(target.split(".")[0]!, names)}: configured servers are ${names.join(", ") || "none"}`);
  const toolName = target === server ? undefined : target.slice(target.startsWith(server + ".") ? server.length + 1 : target.indexOf(".") + 1) || undefined;
  return { server, toolName };
}
