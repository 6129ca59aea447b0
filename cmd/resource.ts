// mcpx resource SERVER [URI]: a server's resources and resource templates, or one resource read
// through the resource.read point of the gate (lib/exec/one-feature.ts), its text on stdout and
// its blobs written to -o FILE. With --remote the daemon lists or reads (POST /v1/resource) and the
// answer is rendered here by the same code, blobs written here from the base64 it carries.

import { McpxError } from "../lib/errors/mcpx-error.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import type { ResourceReply } from "../lib/daemon/feature-route.ts";
import { oneResource, type ResourceAnswer } from "../lib/exec/one-feature.ts";
import { hasBlob, resourceRows, resourceText, writeBlobs } from "../lib/render/feature-content.ts";
import { tsvRow } from "../lib/render/tsv-row.ts";
import { parseCommandArgs } from "../lib/settings/flags.ts";
import { out } from "../lib/util/fd-write.ts";
import { sessionWithAdHoc } from "./ad-hoc.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { namedServer, onDaemon, withEngine } from "./feature-engine.ts";
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
    const { server, remote } = namedServer(parsed, session, name, USAGE);
    const shown = { what: `${server} ${uri}`, json: parsed.own.json === true, outFile: parsed.own["out-file"] as string | undefined };
    if (uri === undefined && shown.outFile !== undefined)
      throw new UsageError(`-o ${shown.outFile} writes a resource that is read: give its URI (usage: ${USAGE})`);
    if (remote) return show(await onDaemon<ResourceReply>(session, "resource", { server, ...(uri === undefined ? {} : { uri }) }), shown);
    // shown before the server is ended: the answer is not held back by the server's exit
    await withEngine(session, "resource", async (engine, push) => show(await oneResource(engine, server, uri, push), shown));
  },
});

/** the lists as rows (--json: as the server listed them), or a read's text with its blobs written to -o FILE; a failed read exits 1 */
function show(answer: ResourceAnswer, { what, json, outFile }: { what: string; json: boolean; outFile: string | undefined }): void {
  if ("list" in answer) {
    if (json) {
      out(JSON.stringify(answer.list, null, 2) + "\n");
      return;
    }
    for (const row of resourceRows(answer.list.resources, answer.list.resourceTemplates)) out(tsvRow(...row));
    return;
  }
  const read = answer.read;
  if (!read.ok) throw new McpxError(read.error.message, "TOOL_ERROR");
  const written = outFile === undefined ? new Map<number, string>() : writeBlobs(read.value, outFile, what);
  if (json) {
    out(JSON.stringify(read.value, null, 2) + "\n");
    return;
  }
  // bytes are never dumped: where nobody reads stdout on a terminal, a blob it cannot show is an error that says what to do
  if (outFile === undefined && hasBlob(read.value) && !process.stdout.isTTY)
    throw new UsageError(`${what} has blob contents: write them with -o FILE, or print them as base64 with --json`);
  const text = resourceText(read.value, written);
  out(text.endsWith("\n") ? text : text + "\n");
}
