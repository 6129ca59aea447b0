// mcpx resource SERVER [URI]: a server's resources and resource templates, or one resource read
// through the resource.read point of the gate (lib/exec/gated-feature.ts), its text on stdout and
// its blobs written to -o FILE.

import { McpxError } from "../lib/errors/mcpx-error.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { featureThroughGate } from "../lib/exec/gated-feature.ts";
import type { Resource, ResourceTemplate } from "../lib/mcp/server-features.ts";
import { hasBlob, resourceRows, resourceText, writeBlobs } from "../lib/render/feature-content.ts";
import { tsvRow } from "../lib/render/tsv-row.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { out } from "../lib/util/fd-write.ts";
import { sessionWithAdHoc } from "./ad-hoc.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { namedServer, withEngine } from "./feature-engine.ts";
import { cittyArgs } from "./help.ts";
import { RESOURCE_FLAGS } from "./own-flags.ts";

const USAGE = "mcpx resource SERVER [URI] [-o FILE] [--json]";

export default defineCommand({
  meta: { name: "resource", description: COMMAND_DESCRIPTIONS.resource },
  args: cittyArgs(
    "resource",
    RESOURCE_FLAGS,
    { name: "server", description: "a server name" },
    { name: "uri", description: "the resource's URI (a template's, filled in); none lists the resources and templates" },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("resource", rawArgs, RESOURCE_FLAGS);
    const [name, uri, ...extra] = parsed.positionals;
    if (extra.length) throw new UsageError(`one URI at a time: ${extra.map((e) => JSON.stringify(e)).join(", ")} left over (usage: ${USAGE})`);
    const session = sessionWithAdHoc(parsed);
    const server = namedServer(session, name, USAGE);
    const json = parsed.own.json === true;
    const outFile = parsed.own["out-file"] as string | undefined;
    if (uri === undefined && outFile !== undefined) throw new UsageError(`-o ${outFile} writes a resource that is read: give its URI (usage: ${USAGE})`);
    await withEngine(session, "resource", async (engine, push) => {
      if (uri === undefined) {
        const [resources, resourceTemplates] = (await Promise.all([
          engine.pool.list(server, "resources/list"),
          engine.pool.list(server, "resources/templates/list"),
        ])) as [Resource[], ResourceTemplate[]];
        if (json) return out(JSON.stringify({ resources, resourceTemplates }, null, 2) + "\n");
        for (const row of resourceRows(resources, resourceTemplates)) out(tsvRow(...row));
        return;
      }
      const answer = await featureThroughGate(engine, engine.gate, { op: "resource.read", server, target: uri, args: {} }, { push });
      if (!answer.ok) throw new McpxError(answer.error.message, "TOOL_ERROR");
      const written = outFile === undefined ? new Map<number, string>() : writeBlobs(answer.value, outFile, `${server} ${uri}`);
      if (json) return out(JSON.stringify(answer.value, null, 2) + "\n");
      // bytes are never dumped: where nobody reads stdout on a terminal, a blob it cannot show is an error that says what to do
      if (outFile === undefined && hasBlob(answer.value) && !process.stdout.isTTY)
        throw new UsageError(`${server} ${uri} has blob contents: write them with -o FILE, or print them as base64 with --json`);
      const text = resourceText(answer.value, written);
      out(text.endsWith("\n") ? text : text + "\n");
    });
  },
});
