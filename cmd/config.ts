// mcpx config import [KIND]: what each kind of config.imports would bring (no KIND), or those servers
// written into ./.mcpx.json (KIND), for users who want one file. A name already in .mcpx.json is
// reported and kept, never overwritten; an entry mcpx cannot use is reported and not written.
// mcpx config add | remove | list: cmd/config-servers.ts.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { applyEdits, modify } from "jsonc-parser";
import { IMPORT_KINDS, type ImportKind, type KindImport, loadImports } from "../lib/config/imports.ts";
import { parseJsonc } from "../lib/config/jsonc.ts";
import { ConfigError } from "../lib/config/errors.ts";
import { out } from "../lib/util/fd-write.ts";
import { isPlainObject } from "../lib/util/json-type.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { ACTION_FLAGS, editServers, listServers } from "./config-servers.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print JSON" },
  user: { type: "boolean", description: "add, remove: write the user's config ($XDG_CONFIG_HOME/mcpx/config.json), not ./.mcpx.json" },
  force: { type: "boolean", description: "add: replace a server of that name already in the file" },
  url: { type: "string", description: "add: an http server at this URL (Streamable HTTP; a url ending in /sse is legacy SSE)", valueHint: "URL" },
  header: { type: "string", multiple: true, description: "add --url: a header sent to it, NAME=VALUE (${VAR} is expanded when read)", valueHint: "K=V" },
  env: { type: "string", multiple: true, description: "add -- COMMAND: a variable for the server, NAME=VALUE", valueHint: "K=V" },
};

const ACTIONS = Object.keys(ACTION_FLAGS);
const USAGE =
  `usage: mcpx config import [KIND] (KIND: ${IMPORT_KINDS.join(", ")}) | mcpx config add NAME -- COMMAND [ARGS…] | ` +
  "mcpx config add NAME --url URL [--header K=V]… | mcpx config remove NAME | mcpx config list";

export default defineCommand({
  meta: { name: "config", description: COMMAND_DESCRIPTIONS.config },
  args: cittyArgs(
    "config",
    OWN,
    { name: "action", description: ACTIONS.join(", ") },
    { name: "name", description: `import: a kind, one of ${IMPORT_KINDS.join(", ")}; add, remove: the server's name` },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("config", rawArgs, OWN);
    const [action, kind, ...extra] = parsed.positionals;
    if (action === undefined || !ACTIONS.includes(action))
      throw new UsageError(`${action === undefined ? "" : `unknown action "${action}"${suggest(action, ACTIONS)}; `}${USAGE}`);
    for (const flag of Object.keys(OWN))
      if (parsed.own[flag] !== undefined && !ACTION_FLAGS[action]!.includes(flag))
        throw new UsageError(`--${flag} is not a flag of mcpx config ${action} (it takes ${ACTION_FLAGS[action]!.map((f) => `--${f}`).join(", ")})`);
    if (action === "add" || action === "remove") return editServers(action, parsed, parsed.positionals.slice(1));
    if (action === "list") {
      if (parsed.positionals.length > 1 || parsed.rest.length) throw new UsageError("usage: mcpx config list [--json]");
      return listServers(parsed);
    }
    if (extra.length || parsed.rest.length) throw new UsageError(USAGE);
    if (kind !== undefined && !(IMPORT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`unknown import kind "${kind}"${suggest(kind, IMPORT_KINDS)}: use one of ${IMPORT_KINDS.join(", ")}`);
    }
    const session = sessionFromArgs(parsed);
    const inForce = session.get("config.imports");
    // every kind, whatever config.imports says: this is where a user finds out what it would bring
    const result = loadImports(kind === undefined ? IMPORT_KINDS : [kind as ImportKind], { cwd: session.cwd, env: session.env });
    if (kind === undefined) {
      if (parsed.own.json)
        out(
          JSON.stringify(
            result.kinds.map((k) => describeJson(k, inForce.includes(k.kind))),
            null,
            2,
          ) + "\n",
        );
      else out(result.kinds.map((k) => describeText(k, inForce.includes(k.kind))).join(""));
      return;
    }
    const report = writeImport(join(session.cwd, ".mcpx.json"), result.kinds[0]!);
    if (parsed.own.json) out(JSON.stringify(report, null, 2) + "\n");
    else {
      const lines = [
        ...report.added.map((n) => `added ${n}`),
        ...report.kept.map((n) => `kept ${n}: .mcpx.json already has a server of that name (not overwritten; rename one to have both)`),
        ...report.skipped.map((n) => `not imported ${n}`),
      ];
      out(
        (lines.length ? lines.join("\n") : `nothing to import: no ${kind} servers found`) +
          `\n${report.added.length ? `wrote ${report.file}` : `${report.file} unchanged`}\n` +
          // what it wrote came from another tool's file, maybe a repository's: the user reviews it, then trusts it (docs/decisions/0015)
          (report.added.length ? `review it, then run \`mcpx trust ${report.file}\` to start its servers\n` : ""),
      );
    }
  },
});

function describeJson(k: KindImport, inForce: boolean) {
  return {
    kind: k.kind,
    inConfigImports: inForce,
    files: k.files,
    servers: Object.values(k.servers).map((s) => ({
      name: s.name,
      origin: s.origin,
      transport: s.kind === "http" ? (s.transport ?? "streamable-http") : "stdio",
      target: s.kind === "http" ? s.url : [s.command, ...s.args].join(" "),
    })),
    broken: Object.values(k.broken).map((b) => ({ name: b.name, origin: b.origin, error: b.error.message })),
    disabled: k.disabled,
    ignoredKeys: k.ignored,
    shadowed: k.shadowed,
  };
}

function describeText(k: KindImport, inForce: boolean): string {
  const j = describeJson(k, inForce);
  const lines = [`${k.kind}${inForce ? "" : " (not in config.imports)"}: ${k.files.length ? k.files.join(", ") : "no file found"}`];
  for (const s of j.servers) lines.push(`  ${s.name}\t${s.transport}\t${s.target}\t${s.origin}`);
  for (const b of j.broken) lines.push(`  ${b.name}\tbroken: ${b.error}`);
  for (const d of j.disabled) lines.push(`  ${d}\tswitched off in ${k.kind}, not imported`);
  for (const s of j.shadowed) lines.push(`  ${s}\tshadowed by an earlier ${k.kind} file`);
  for (const i of j.ignoredKeys) lines.push(`  ignored keys of ${i}`);
  return lines.join("\n") + "\n";
}

/** merges a kind's entries into the file (creating it), keeping its formatting and comments */
function writeImport(file: string, k: KindImport): { file: string; added: string[]; kept: string[]; skipped: string[] } {
  let text = existsSync(file) ? readFileSync(file, "utf8") : "{}\n";
  // mcpx's own file: strict, as everywhere else
  const doc = parseJsonc(text, file);
  if (!isPlainObject(doc)) throw new ConfigError({ file, detail: 'a config file must hold one JSON object, e.g. {"mcpServers": {}}' });
  const existing = isPlainObject(doc.mcpServers) ? doc.mcpServers : {};
  if (doc.mcpServers !== undefined && !isPlainObject(doc.mcpServers))
    throw new ConfigError({ file, key: "mcpServers", detail: "must be an object of server entries" });
  const added: string[] = [];
  const kept: string[] = [];
  const skipped: string[] = [];
  for (const [name, entry] of Object.entries(k.entries)) {
    const origin = k.origins[name]!;
    if (Object.hasOwn(existing, name)) {
      kept.push(`${name} (from ${origin})`);
      continue;
    }
    // a relative cwd meant "beside the file it was written in"; in .mcpx.json it must say so
    const cwd = entry.cwd;
    const fixed = typeof cwd === "string" && !isAbsolute(cwd) && !cwd.includes("${") ? { ...entry, cwd: resolve(dirname(origin), cwd) } : entry;
    text = applyEdits(text, modify(text, ["mcpServers", name], fixed, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
    added.push(`${name} (from ${origin})`);
  }
  for (const [name, b] of Object.entries(k.broken)) if (!(name in k.entries)) skipped.push(`${name}: ${b.error.message}`);
  for (const d of k.disabled) skipped.push(`${d}: switched off in ${k.kind}`);
  if (added.length) writeFileSync(file, text.endsWith("\n") ? text : text + "\n");
  return { file, added, kept, skipped };
}
