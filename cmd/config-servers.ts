// mcpx config add | remove | list: the servers of a config file, changed by command, and every server
// in force with the file it came from and whether it can start. add and remove write ./.mcpx.json
// (--user: the user's file; --config FILE / MCPX_CONFIG: that file), keeping its comments. A project
// file mcpx created, or one trusted as it was, is trusted as it is after the edit; one that was not
// trusted stays so, and the output says how to trust it (docs/decisions/0015, amendment).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { explicitFile, userConfigFile } from "../lib/config/find.ts";
import { addServer, removeServer, serversOf } from "../lib/config/edit-servers.ts";
import type { ParsedArgs } from "../lib/settings/flags.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { openSession, type Session } from "../lib/session/session.ts";
import { trustAfterEdit } from "../lib/trust/trust-files.ts";
import { out } from "../lib/util/fd-write.ts";

/** which of config's own flags each action takes: a flag given to an action that ignores it is an error */
export const ACTION_FLAGS: Record<string, readonly string[]> = {
  import: ["json"],
  add: ["json", "user", "force", "url", "header", "env"],
  remove: ["json", "user"],
  list: ["json"],
};

type Own = ParsedArgs["own"];

/** the file add and remove write, and whether it is a project's (trusted only by `mcpx trust`) */
function targetFile(own: Own, cwd: string, env: Record<string, string | undefined>): { file: string; project: boolean; why: string } {
  const named = explicitFile({ cwd, env, explicit: own.config as string | undefined });
  if (own.user) {
    if (named) throw new UsageError(`--user and ${named.via} name two files: give one (--user writes the user's config, ${named.via} the file it names)`);
    const user = userConfigFile(env);
    if (!user) throw new UsageError("--user: there is no user config file here (neither XDG_CONFIG_HOME nor HOME is set): set one, or leave out --user");
    return { file: user, project: false, why: "your user config" };
  }
  if (named) return { file: resolve(cwd, named.path), project: false, why: `the file ${named.via} names` };
  return { file: join(cwd, ".mcpx.json"), project: true, why: "" };
}

/** K=V items of a repeatable flag as an object; an item without = or with an empty key names the flag */
function pairs(flag: string, items: unknown): Record<string, string> | undefined {
  const list = (items as string[] | undefined) ?? [];
  if (list.length === 0) return undefined;
  const o: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf("=");
    if (eq <= 0)
      throw new UsageError(
        `--${flag} ${JSON.stringify(item)}: give NAME=VALUE, e.g. --${flag} ${flag === "header" ? "Authorization='Bearer ${TOKEN}'" : "DEBUG=1"}`,
      );
    o[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return o;
}

const ADD_USAGE = "usage: mcpx config add NAME [--env K=V]… -- COMMAND [ARGS…]  |  mcpx config add NAME --url URL [--header K=V]…";

/** the entry `mcpx config add` writes, from its flags and what follows `--` */
function entryFrom(own: Own, command: string[]): Record<string, unknown> {
  const url = own.url as string | undefined;
  const headers = pairs("header", own.header);
  const env = pairs("env", own.env);
  if (url !== undefined) {
    if (command.length) throw new UsageError(`--url and a command after -- are two servers: give one. ${ADD_USAGE}`);
    if (env) throw new UsageError("--env goes with a command (a stdio server); an http server (--url) takes --header");
    // a ${VAR} is expanded when the config is read, so such a url is checked then
    if (!url.includes("${")) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {}
      if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
        throw new UsageError(`--url ${JSON.stringify(url)}: give an http:// or https:// URL, e.g. https://example.com/mcp`);
    }
    return { url, ...(headers ? { headers } : {}) };
  }
  if (headers) throw new UsageError("--header goes with --url (an http server); a stdio server (after --) takes --env");
  if (!command.length || command[0] === "") throw new UsageError(`no server given: ${ADD_USAGE}`);
  const [cmd, ...args] = command;
  return { command: cmd, ...(args.length ? { args } : {}), ...(env ? { env } : {}) };
}

/** mcpx config add NAME …, mcpx config remove NAME */
export function editServers(action: "add" | "remove", parsed: ParsedArgs, names: string[]): void {
  const cwd = process.cwd();
  const env = process.env;
  if (names.length !== 1 || names[0] === "")
    throw new UsageError(
      action === "add"
        ? `${names.length > 1 ? `one name, then -- before the command (got ${names.join(" ")}): ` : ""}${ADD_USAGE}`
        : "usage: mcpx config remove NAME",
    );
  if (action === "remove" && parsed.rest.length) throw new UsageError("usage: mcpx config remove NAME (nothing after --)");
  const name = names[0]!;
  const target = targetFile(parsed.own, cwd, env);
  const before = existsSync(target.file) ? readFileSync(target.file, "utf8") : undefined;
  const entry = action === "add" ? entryFrom(parsed.own, parsed.rest) : undefined;
  const after =
    action === "add" ? addServer(before ?? "{}\n", target.file, name, entry!, parsed.own.force === true) : removeServer(before ?? "{}\n", target.file, name);
  mkdirSync(dirname(target.file), { recursive: true });
  writeFileSync(target.file, after);
  const trusted = target.project ? trustAfterEdit(env, target.file, before, after) : true;
  if (parsed.own.json) {
    out(JSON.stringify({ action, name, file: target.file, ...(entry ? { entry } : {}), trusted }, null, 2) + "\n");
    return;
  }
  const done = action === "add" ? `added ${name} to ${target.file}` : `removed ${name} from ${target.file}`;
  const trust = !target.project
    ? `${target.why}: trusted without asking`
    : trusted
      ? `trusted as it is now (mcpx wrote it at your command; \`mcpx trust --revoke ${target.file}\` takes that back)`
      : `not trusted: it held what you had not trusted before this change, so its servers with a command, scripts and hooks ` +
        `are not used; review it, then run \`mcpx trust ${target.file}\``;
  out(`${done}\n${target.file}: ${trust}\n`);
}

/** one server in force, as `mcpx config list` shows it */
interface Row {
  name: string;
  transport: string;
  /** the entry as its file has it (${VAR} unexpanded: list shows no secret) */
  target: string;
  file: string;
  kind?: string;
  state: string;
}

/** mcpx config list: every server in force, configured or imported, usable or not, in config order */
export function listServers(parsed: ParsedArgs): void {
  const session = openSession({
    cwd: process.cwd(),
    env: process.env,
    configFlag: parsed.own.config as string | undefined,
    flags: parsed.settings,
    trustWarnings: false,
  });
  const rows: Row[] = [];
  for (const s of Object.values(session.config.servers)) rows.push(row(session, s.name, s.origin, s.imported, "ok"));
  for (const b of Object.values(session.config.broken))
    rows.push(row(session, b.name, b.origin, b.imported, b.untrusted ? `not trusted: run \`mcpx trust ${b.origin}\`` : `broken: ${b.error.message}`));
  if (parsed.own.json) out(JSON.stringify(rows, null, 2) + "\n");
  else if (rows.length === 0) out("no server is configured here (mcpx config add NAME -- COMMAND … adds one)\n");
  else for (const r of rows) out([r.name, r.transport, r.target, r.kind ? `${r.file} (${r.kind})` : r.file, r.state].map(oneLine).join("\t") + "\n");
}

function row(session: Session, name: string, file: string, kind: string | undefined, state: string): Row {
  const raw = rawEntry(session, name, file, kind);
  const url = typeof raw.url === "string" ? raw.url : undefined;
  const transport = url !== undefined ? (raw.type === "sse" || /\/sse(\?|$)/.test(url) ? "sse" : "http") : "stdio";
  const target = url ?? [raw.command, ...(Array.isArray(raw.args) ? raw.args : [])].filter((w) => w !== undefined).join(" ");
  return { name, transport, target, file, ...(kind ? { kind } : {}), state };
}

/** the entry as written (mcpx's own file, or the import's mapped entry) */
function rawEntry(session: Session, name: string, file: string, kind: string | undefined): Record<string, unknown> {
  if (kind) return session.imports.kinds.find((k) => k.kind === kind)?.entries[name] ?? {};
  const f = session.config.files.find((c) => c.path === file);
  const entry = f ? serversOf(f.text, f.path)[name] : undefined;
  return entry !== null && typeof entry === "object" ? (entry as Record<string, unknown>) : {};
}

/** a tab-separated cell: no tab or newline of its own */
const oneLine = (s: string) => s.replace(/[\t\r\n]+/g, " ");
