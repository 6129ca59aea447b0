// `mcpx config add` and `config remove`: one server entry put into or taken out of a config file's
// mcpServers, as text edits (jsonc-parser's modify), so the file's comments and formatting stay as
// the user wrote them. Pure over the file's text; reading and writing the file is the caller's.

import { applyEdits, modify } from "jsonc-parser";
import { ConfigError } from "./errors.ts";
import { parseJsonc } from "./jsonc.ts";
import { isPlainObject } from "../util/json-type.ts";

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2 } } as const;

/** the text's mcpServers, checked to be an object of entries; `file` names it in the error */
export function serversOf(text: string, file: string): Record<string, unknown> {
  const doc = parseJsonc(text, file);
  if (!isPlainObject(doc)) throw new ConfigError({ file, detail: 'a config file must hold one JSON object, e.g. {"mcpServers": {}}' });
  if (doc.mcpServers === undefined) return {};
  if (!isPlainObject(doc.mcpServers)) throw new ConfigError({ file, key: "mcpServers", detail: "must be an object of server entries" });
  return doc.mcpServers;
}

/**
 * The text with `entry` as mcpServers[name]. A name already there is an error unless `replace`: an
 * entry someone wrote is never lost by a typo'd add.
 */
export function addServer(text: string, file: string, name: string, entry: Record<string, unknown>, replace: boolean): string {
  if (Object.hasOwn(serversOf(text, file), name) && !replace)
    throw new ConfigError({
      file,
      key: `mcpServers.${name}`,
      detail: "a server of that name is already there: add --force to replace it, or choose another name",
    });
  const edited = applyEdits(text, modify(text, ["mcpServers", name], entry, FORMAT));
  return edited.endsWith("\n") ? edited : edited + "\n";
}

/** the text without mcpServers[name]; an error naming the servers there when it has none of that name */
export function removeServer(text: string, file: string, name: string): string {
  const servers = Object.keys(serversOf(text, file));
  if (!servers.includes(name))
    throw new ConfigError({
      file,
      key: `mcpServers.${name}`,
      detail:
        `no server of that name in this file (it has ${servers.length ? servers.join(", ") : "none"}); ` +
        "mcpx config list shows where each server comes from",
    });
  return applyEdits(text, modify(text, ["mcpServers", name], undefined, FORMAT));
}
