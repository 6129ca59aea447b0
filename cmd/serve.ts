// mcpx serve: mcpx as an MCP server over stdio, for agent hosts (mcpx_exec, mcpx_call,
// mcpx_namespaces, mcpx_types, mcpx_search, mcpx_describe, and the `_Stop`/`_PostCompact` lifecycle hooks). Everything it does
// is in lib/mcpserver; stdout is the MCP channel, so nothing here prints to it.

import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openEngine } from "../lib/session/engine.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { unsandboxedWarning } from "../lib/exec/door-policy.ts";
import { err } from "../lib/util/fd-write.ts";
import { runsFor } from "../lib/daemon/runs.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";
import { telemetryTaps } from "../lib/telemetry/otel-load.ts";
import { serveClientAsks } from "../lib/mcpserver/client-asks.ts";

const OWN: Record<string, OwnFlag> = {};

export default defineCommand({
  meta: { name: "serve", description: COMMAND_DESCRIPTIONS.serve },
  args: cittyArgs("serve", OWN),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("serve", rawArgs, OWN);
    if (parsed.positionals.length > 0 || parsed.rest.length > 0)
      throw new UsageError(`takes no arguments (got ${[...parsed.positionals, ...parsed.rest].join(" ")}); configure servers in .mcpx.json`);
    const session = sessionFromArgs(parsed);
    // an agent's every run takes these defaults: an untrusted file may not set one (exit 2, before serving)
    refuseUntrusted(session.trust, "serve");
    // said before anything is served: an agent's code with the user's whole reach is worth a line on stderr
    const unsandboxed = unsandboxedWarning(session, "mcpx serve");
    if (unsandboxed) err(unsandboxed + "\n");
    // one client, but it may send many tools/calls at once: its mcpx_exec runs are bounded as the daemon's (daemon.maxRuns)
    const runs = runsFor(session);
    // no ask: stdin is the MCP channel; `ask` hooks ask through the client's elicitation instead,
    // and what an upstream server asks is forwarded to the client as far as it declared it
    const clientAsks = serveClientAsks();
    const engine = openEngine(session, { calls: hookCalls(session), answers: clientAsks, taps: await telemetryTaps(session) });
    const { serveStdio } = await import("../lib/mcpserver/stdio.ts");
    await serveStdio({ engine, session, runs, clientAsks });
  },
});
