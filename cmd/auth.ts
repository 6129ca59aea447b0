// mcpx auth NAME [--logout]: log in to an HTTP server that requires OAuth, or forget the login.
// The flow is lib/mcp/oauth/login.ts; this only finds the server and reports.

import { authDir } from "../lib/mcp/oauth/store.ts";
import { login, logout, type HttpServer } from "../lib/mcp/oauth/login.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { err } from "../lib/util/fd-write.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  logout: { type: "boolean", description: "Remove the stored tokens and client for NAME instead of logging in" },
};

export default defineCommand({
  meta: { name: "auth", description: COMMAND_DESCRIPTIONS.auth },
  args: cittyArgs("auth", OWN, { name: "name", description: "a configured HTTP server" }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("auth", rawArgs, OWN);
    const [name, ...extra] = parsed.positionals;
    if (!name || extra.length) throw new UsageError("usage: mcpx auth NAME [--logout] (NAME: a server with a url in mcpServers)");
    const session = sessionFromArgs(parsed);
    const servers = session.config.servers;
    const cfg = servers[name];
    const http = Object.values(servers)
      .filter((s) => s.kind === "http")
      .map((s) => s.name);
    if (!cfg)
      throw new UsageError(
        `unknown server "${name}"${suggest(name, Object.keys(servers))}: the HTTP servers ` +
          `configured are ${http.join(", ") || "none"} (mcpServers entries with a url)`,
      );
    if (cfg.kind !== "http")
      throw new UsageError(
        `server "${name}" is a stdio server (${cfg.origin}): OAuth is for servers reached by url; a stdio server takes its credentials from its env`,
      );
    const dir = authDir(session.env);
    if (parsed.own.logout) {
      const files = logout(cfg as HttpServer, dir);
      err(
        files.length
          ? `mcpx: logged out of "${name}" (${cfg.url}): removed ${files.join(", ")}\n`
          : `mcpx: no login stored for "${name}" (${cfg.url}); nothing to remove\n`,
      );
      return;
    }
    const done = await login(cfg as HttpServer, { dir, env: session.env, say: (line) => err(line + "\n") });
    const life = done.expiresIn !== undefined ? `; the access token lives ${done.expiresIn}s and is refreshed when it expires` : "";
    err(`mcpx: authorized "${name}" (${cfg.url})${done.scope ? ` for scope "${done.scope}"` : ""}: tokens stored in ${done.file}${life}\n`);
  },
});
