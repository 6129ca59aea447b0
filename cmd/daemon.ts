// mcpx daemon: serve /v1 (and /mcp) until SIGINT or SIGTERM. Everything it does is in lib/daemon.

import { startDaemon } from "../lib/daemon/server.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {};

export default defineCommand({
  meta: { name: "daemon", description: COMMAND_DESCRIPTIONS.daemon },
  args: cittyArgs("daemon", OWN),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("daemon", rawArgs, OWN);
    if (parsed.positionals.length || parsed.rest.length)
      throw new UsageError(
        `takes no arguments (got ${[...parsed.positionals, ...parsed.rest].join(" ")}); its address is the daemon.address setting (--daemon-address)`,
      );
    const session = sessionFromArgs(parsed);
    // every run it serves takes these defaults: an untrusted file may not set one (exit 2, before listening)
    refuseUntrusted(session.trust, "daemon");
    // handled from before the daemon starts: a supervisor may send SIGTERM as soon as it reads the
    // "listening" line, and the default action would leave the socket, servers and runtimes behind
    let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
    let stopAsked = false;
    const onSignal = () => {
      stopAsked = true;
      if (daemon) void daemon.stop();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      daemon = await startDaemon(session);
      if (stopAsked) void daemon.stop();
      await daemon.closed;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
