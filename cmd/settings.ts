// mcpx settings list | get PATH: every setting's value, where it came from, and what it shadowed.

import { out } from "../lib/util/fd-write.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { settingRow, type SettingRow } from "../lib/settings/rows.ts";
import { SETTINGS } from "../lib/settings/registry.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { sessionFromArgs, type Session } from "../lib/session/session.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print JSON rows (the same rows /v1/settings serves)" },
};

export default defineCommand({
  meta: { name: "settings", description: COMMAND_DESCRIPTIONS.settings },
  args: cittyArgs("settings", OWN, { name: "action", description: "list or get" }, { name: "path", description: "a setting path, for get" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("settings", rawArgs, OWN);
    const [action, path, ...extra] = parsed.positionals;
    if (extra.length || (action !== "list" && action !== "get")) throw new UsageError("usage: mcpx settings list | mcpx settings get PATH");
    if (action === "get" && !path) throw new UsageError("get needs a setting path, e.g. script.before");
    if (action === "get" && !SETTINGS.some((s) => s.path === path)) {
      throw new UsageError(
        `unknown setting "${path}"${suggest(
          path!,
          SETTINGS.map((s) => s.path),
        )}: use one of ${SETTINGS.map((s) => s.path).join(", ")}`,
      );
    }
    const session = sessionFromArgs(parsed);
    const rows = [...session.settings.values()].filter((s) => action === "list" || s.decl.path === path).map(settingRow);
    // config.imports also shows what it brought: every server, with the file (and tool) it came from
    const servers = action === "get" && path === "config.imports" ? serverOrigins(session) : undefined;
    if (parsed.own.json) out(JSON.stringify(action === "get" ? { ...rows[0], ...(servers ? { servers } : {}) } : rows, null, 2) + "\n");
    else out(rows.map((r) => (action === "get" ? describeRow(r) : listLine(r))).join(action === "get" ? "\n" : "") + (servers ? describeServers(servers) : ""));
  },
});

interface ServerOrigin {
  name: string;
  origin: string;
  /** the import kind; "mcpx" for mcpx's own config */
  from: string;
  broken?: string;
}

function serverOrigins(session: Session): ServerOrigin[] {
  const { servers, broken } = session.config;
  return [
    ...Object.values(servers).map((s) => ({ name: s.name, origin: s.origin, from: s.imported ?? "mcpx" })),
    ...Object.values(broken).map((b) => ({ name: b.name, origin: b.origin, from: b.imported ?? "mcpx", broken: b.error.message })),
  ];
}

function describeServers(servers: ServerOrigin[]): string {
  if (servers.length === 0) return "  servers: none\n";
  return ["  servers:", ...servers.map((s) => `    ${s.name}  ← ${s.origin} (${s.from})${s.broken ? " broken" : ""}`)].join("\n") + "\n";
}

function show(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v);
}

function listLine(r: SettingRow): string {
  const value = r.items ? `${r.items.length} line${r.items.length === 1 ? "" : "s"}` : show(r.value);
  return `${r.path} = ${value}\t(${r.origin})\n`;
}

function describeRow(r: SettingRow): string {
  const lines = [`${r.path} (${r.kind}) — ${r.description}`, `  env ${r.env}, flag ${r.flags.join(", ")}`];
  if (r.items) {
    lines.push(r.items.length ? "  lines:" : "  lines: none");
    for (const [n, i] of r.items.entries()) lines.push(`    ${n + 1}. ${show(i.value)}  ← ${i.origin}`);
  } else lines.push(`  value: ${show(r.value)}  ← ${r.origin}`);
  if (r.shadowed.length) {
    lines.push("  shadowed:");
    for (const s of r.shadowed) lines.push(`    ${show(s.value)}  ← ${s.origin}`);
  }
  return lines.join("\n") + "\n";
}
