// mcpx ls [SERVER]: the configured servers and their tools, as scripts see them (hook tools hidden),
// each with where it came from (its file, and the tool whose file it is when config.imports read it).

import { callLines } from "../lib/codegen/short-signature.ts";
import { toIdentifier } from "../lib/mcp/tool-names.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { out } from "../lib/util/fd-write.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { readCatalogue, type Catalogue, type CatalogueRow } from "../lib/mcp/catalogue.ts";
import { remoteCatalogue } from "./daemon-request.ts";
import { wantsDaemon } from "./wants-daemon.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openEngine } from "../lib/session/engine.ts";
import { terminalAnswerer } from "../lib/session/terminal-answers.ts";
import { refuseAdHocRemote, sessionWithAdHoc } from "./ad-hoc.ts";
import { AD_HOC_FLAGS } from "./own-flags.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";
import { tsvRow } from "../lib/render/tsv-row.ts";

const OWN: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print JSON" },
  remote: { type: "boolean", description: "List the servers of the daemon at daemon.address (mcpx daemon), printed as a local ls prints them" },
};

export default defineCommand({
  meta: { name: "ls", description: COMMAND_DESCRIPTIONS.ls },
  args: cittyArgs("ls", OWN, { name: "server", description: "a server name" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("ls", rawArgs, OWN);
    const [only, ...extra] = parsed.positionals;
    if (extra.length) throw new UsageError("usage: mcpx ls [SERVER]");
    const session = sessionWithAdHoc(parsed);
    const remote = wantsDaemon(parsed.own, session);
    if (remote) refuseAdHocRemote(parsed.own);
    let catalogue: Catalogue;
    if (remote) catalogue = await remoteCatalogue(session, "ls", only);
    else {
      const engine = openEngine(session, {
        calls: hookCalls(session),
        // declared as `mcpx call` on this terminal declares it, so the tools listed are the ones it can call
        answers: terminalAnswerer(session.env),
        status: statusLine(session.env),
        untrustedPlugins: "list",
      });
      try {
        catalogue = await readCatalogue(engine.pool, only);
      } finally {
        await engine.close();
      }
    }
    const { rows } = catalogue;
    const originText = (r: CatalogueRow) => (r.imported ? `${r.origin} (${r.imported})` : r.origin);
    const from = (r: CatalogueRow) => ({ origin: r.origin, ...(r.imported ? { imported: r.imported } : {}) });
    if (parsed.own.json) {
      const json = rows.map((r) => ({
        server: r.server,
        namespace: toIdentifier(r.server),
        ...from(r),
        ...(r.broken !== undefined
          ? { broken: r.broken, ...(r.untrusted ? { untrusted: true } : {}) }
          : r.error !== undefined
            ? { error: r.error }
            : { count: r.tools!.length, ...(r.counts ? r.counts : {}), tools: r.tools }),
      }));
      out(JSON.stringify(json, null, 2) + "\n");
    } else if (only === undefined) {
      for (const r of rows) {
        const what = r.untrusted
          ? "not trusted, not started (see the warning above)"
          : r.broken !== undefined
            ? "broken (see the warning above)"
            : r.error !== undefined
              ? `error: ${r.error}`
              : toolsAndFeatures(r);
        out(tsvRow(r.server, what, originText(r)));
      }
    } else {
      const s = rows[0]!;
      if (s.error !== undefined) throw new McpxError(s.error, "UPSTREAM_START");
      // the name as the server lists it (and Claude Code shows it), then how a script calls it: a tool
      // whose identifier is taken is reachable through call()
      const lines = callLines(s.server, s.tools!);
      for (const t of s.tools!) {
        const how = lines.get(t.name)!;
        out(tsvRow(t.name, how, t.description?.split("\n")[0] ?? ""));
      }
    }
    if (rows.some((r) => r.error !== undefined)) process.exitCode = 1;
  },
});

/** "6 tools", and the resources, templates and prompts a server has beside them ("13 tools, 7 resources, 2 templates, 4 prompts") */
function toolsAndFeatures(r: CatalogueRow): string {
  const c = r.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const extra = c
    ? [
        [c.resources, "resource"],
        [c.resourceTemplates, "template"],
        [c.prompts, "prompt"],
      ].filter(([n]) => (n as number) > 0)
    : [];
  return [`${r.tools!.length} tools`, ...extra.map(([n, w]) => plural(n as number, w as string))].join(", ");
}
