// The settings table of docs/settings.md, derived from the registry alone, so the docs cannot
// describe a setting, a variable or a flag that does not exist. test/gen-docs.ts writes it between
// the markers below; test/unit/docs.test.ts fails when the file is stale.

import { SETTINGS } from "./registry.ts";
import { EVERY, type CommandName, type SettingDecl, type SettingKind } from "./setting-decl.ts";
import { envName, flagSpellings } from "./setting-names.ts";

export const GENERATED_BEGIN = "<!-- BEGIN GENERATED settings -->";
export const GENERATED_END = "<!-- END GENERATED settings -->";

/**
 * the commands that take the general settings (EVERY); a setting taking all of them says nothing about
 * commands in its flags cell. Not every command some setting names: approvals, approve and reject
 * take only where the daemon is (for --remote), and would otherwise make every general setting list
 * fourteen commands.
 */
const ALL_COMMANDS: ReadonlySet<CommandName> = new Set(EVERY);

/** what each kind accepts, in the words of lib/settings/resolve.ts's strict parsers */
const ACCEPTS: Record<SettingKind, string> = {
  string: "any text",
  int: "a whole number",
  bool: "true/false (also 1/0, yes/no)",
  duration: "a number with a unit: `250ms`, `2.5s`, `1m`, `1h` (or `0`)",
  enum: "",
  list: "a list of strings; `null` (`-`) splices inherited items",
  source: "TypeScript lines; `null` (`-`) splices inherited lines; `@FILE` reads a file",
  json: "JSON objects, or an array of objects and `null`s (`-` on a flag splices)",
};

/** the markdown table: one row per registry entry, in registry order */
export function settingsMarkdown(): string {
  const head = ["Setting", "Kind", "Default", "Variable", "Flags", "Accepts", "Description"];
  const rows = SETTINGS.map((s) => [
    code(s.path),
    s.kind,
    code(JSON.stringify(s.default)),
    code(envName(s.path)),
    flagsCell(s),
    s.kind === "enum" ? (s.values ?? []).map(code).join(", ") : ACCEPTS[s.kind],
    s.description,
  ]);
  return [head, head.map(() => "---"), ...rows].map((r) => `| ${r.map(cell).join(" | ")} |`).join("\n") + "\n";
}

/** the document with its generated part replaced; throws when the markers are missing or out of order */
export function withGeneratedSettings(doc: string): string {
  const begin = doc.indexOf(GENERATED_BEGIN);
  const end = doc.indexOf(GENERATED_END);
  if (begin < 0 || end < begin) {
    throw new Error(`the document needs the lines ${GENERATED_BEGIN} and ${GENERATED_END}, in that order, around the generated table`);
  }
  return doc.slice(0, begin + GENERATED_BEGIN.length) + "\n" + settingsMarkdown() + doc.slice(end);
}

function flagsCell(s: SettingDecl): string {
  const flags = flagSpellings(s)
    .map((f) => code(`--${f}`))
    .join(", ");
  const commands = s.commands;
  return commands === undefined || [...ALL_COMMANDS].every((c) => commands.includes(c)) ? flags : `${flags} (${commands.join(", ")})`;
}

function code(text: string): string {
  return "`" + text + "`";
}

/** a table cell: a pipe would end the cell and a newline the row */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
