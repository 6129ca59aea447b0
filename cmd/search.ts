// mcpx search QUERY: the tools that best fit an intent in words, across every server (as mcpx_search
// ranks them), each with the line a script calls it by; `mcpx types SERVER.TOOL` has the declaration.

import { foundTools } from "../lib/codegen/found-tools.ts";
import { readCatalogue, type Catalogue } from "../lib/mcp/catalogue.ts";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "../lib/mcp/tool-search.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { err, out } from "../lib/util/fd-write.ts";
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
  limit: { type: "string", description: `At most this many tools (1 to ${MAX_SEARCH_LIMIT}; default ${DEFAULT_SEARCH_LIMIT})`, valueHint: "N" },
  json: { type: "boolean", description: "Print the hits as JSON: [{name, server, tool, score, signature, description}]" },
  remote: { type: "boolean", description: "Search the tools of the daemon at daemon.address (mcpx daemon), ranked and printed here as a local search" },
};

export default defineCommand({
  meta: { name: "search", description: COMMAND_DESCRIPTIONS.search },
  args: cittyArgs("search", OWN, { name: "query", description: "what you want to do, in words (quote it, or give several words)" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("search", rawArgs, OWN);
    const query = parsed.positionals.join(" ").trim();
    if (!query) throw new UsageError('usage: mcpx search QUERY [--limit N] [--json], e.g. mcpx search "write a file"');
    const limit = limitOf(parsed.own.limit as string | undefined);
    const session = sessionWithAdHoc(parsed);
    let catalogue: Catalogue;
    if (wantsDaemon(parsed.own, session)) {
      refuseAdHocRemote(parsed.own);
      catalogue = await remoteCatalogue(session, "search");
    } else {
      const engine = openEngine(session, {
        calls: hookCalls(session),
        // declared as `mcpx call` on this terminal declares it, so the tools found are the ones it can call
        answers: terminalAnswerer(session.env),
        status: statusLine(session.env),
        untrustedPlugins: "list",
      });
      try {
        catalogue = await readCatalogue(engine.pool);
      } finally {
        await engine.close();
      }
    }
    const listed = catalogue.rows.flatMap((r) => (r.tools ? [{ server: r.server, tools: r.tools }] : []));
    const hits = foundTools(listed, query, limit);
    if (parsed.own.json) out(JSON.stringify(hits, null, 2) + "\n");
    else for (const h of hits) out(tsvRow(h.name, h.signature, h.description));
    // a server that could not list its tools was not searched: said, and the exit is 1, as for mcpx ls
    const failed = catalogue.rows.filter((r) => r.error !== undefined);
    for (const r of failed) err(`mcpx search: ${r.server} was not searched: ${r.error}\n`);
    if (failed.length) process.exitCode = 1;
    else if (hits.length === 0 && !parsed.own.json) err(`mcpx search: no tool matches ${JSON.stringify(query)}: try other words, or mcpx ls to browse\n`);
  },
});

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SEARCH_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_SEARCH_LIMIT) throw new UsageError(`--limit ${text}: give a whole number from 1 to ${MAX_SEARCH_LIMIT}`);
  return n;
}
