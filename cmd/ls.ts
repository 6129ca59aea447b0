// mcpx ls [SERVER]: the configured servers and their tools, as scripts see them (hook tools hidden),
// each with where it came from (its file, and the tool whose file it is when config.imports read it).

import { toolBindings } from "../lib/codegen/identifiers.ts";
import { toIdentifier } from "../lib/mcp/tool-names.ts";
import { statusLine } from "../lib/util/status-line.ts";
import { out } from "../lib/util/fd-write.ts";
import { McpxError } from "../lib/errors/mcpx-error.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { UsageError, parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openEngine } from "../lib/session/engine.ts";
import { AD_HOC_FLAGS, sessionWithAdHoc } from "./ad-hoc.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  ...AD_HOC_FLAGS,
  json: { type: "boolean", description: "Print JSON" },
};

export default defineCommand({
  meta: { name: "ls", description: COMMAND_DESCRIPTIONS.ls },
  args: cittyArgs("ls", OWN, { name: "server", description: "a server name" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("ls", rawArgs, OWN);
    const [only, ...extra] = parsed.positionals;
    if (extra.length) throw new UsageError("usage: mcpx ls [SERVER]");
    const session = sessionWithAdHoc(parsed);
    const engine = openEngine(session, { status: statusLine(session.env) });
    const pool = engine.pool;
    try {
      // the configured servers and those plugins bring: every namespace a script sees
      const names = pool.names();
      const broken = pool.brokenNames();
      if (only !== undefined && broken.includes(only)) throw pool.brokenError(only)!;
      if (only !== undefined && !names.includes(only))
        throw new UsageError(`unknown server "${only}"${suggest(only, names)}: configured servers are ${names.join(", ") || "none"}`);
      const targets = only === undefined ? names : [only];
      // listed concurrently, reported in config order
      const listed = await Promise.all(
        targets.map(async (name) => {
          try {
            return { name, tools: await pool.visibleTools(name) };
          } catch (e) {
            return { name, error: (e as Error).message };
          }
        }),
      );
      // where each server came from: its file, and the tool that keeps it when it was imported
      const from = (name: string) => {
        const s = pool.servers[name] ?? session.config.broken[name]!;
        return { origin: s.origin, ...(s.imported ? { imported: s.imported } : {}) };
      };
      const originText = (name: string) => {
        const f = from(name);
        return f.imported ? `${f.origin} (${f.imported})` : f.origin;
      };
      // broken entries are listed, not started: the session's warning already named each with its fix
      const brokenRows = only === undefined ? broken.map((name) => ({ name, broken: session.config.broken[name]!.error.message })) : [];
      if (parsed.own.json) {
        const rows = listed.map((s) => ({
          server: s.name,
          namespace: toIdentifier(s.name),
          ...from(s.name),
          ...(s.error ? { error: s.error } : { count: s.tools!.length, tools: s.tools }),
        }));
        const brokenJson = brokenRows.map((b) => ({ server: b.name, namespace: toIdentifier(b.name), ...from(b.name), broken: b.broken }));
        out(JSON.stringify([...rows, ...brokenJson], null, 2) + "\n");
      } else if (only === undefined) {
        for (const s of listed) out(`${s.name}\t${s.error ? `error: ${s.error}` : `${s.tools!.length} tools`}\t${originText(s.name)}\n`);
        for (const b of brokenRows) out(`${b.name}\tbroken (see the warning above)\t${originText(b.name)}\n`);
      } else {
        const s = listed[0]!;
        if (s.error) throw new McpxError(s.error, "UPSTREAM_START");
        // the name a script calls it by; a tool whose identifier is taken is reachable through call()
        const byName = new Map(toolBindings(s.tools!.map((t) => t.name)).map((b) => [b.name, b]));
        for (const t of s.tools!) {
          const b = byName.get(t.name);
          const how = b && !b.hiddenBecause ? `${toIdentifier(s.name)}.${b.identifier}` : `call(${JSON.stringify(s.name)}, ${JSON.stringify(t.name)})`;
          out(`${how}${t.description ? `\t${t.description.split("\n")[0]}` : ""}\n`);
        }
      }
      if (listed.some((s) => s.error)) process.exitCode = 1;
    } finally {
      await engine.close();
    }
  },
});
