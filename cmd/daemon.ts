// mcpx daemon: serve /v1 (and /mcp) in the foreground until SIGINT or SIGTERM; mcpx daemon start |
// status | stop | restart: the same daemon in the background, found by its address and pid file
// (lib/daemon/lifecycle.ts). Everything a daemon does is in lib/daemon.

import { sessionAddress, formatAddress } from "../lib/daemon/address.ts";
import { DAEMON_ACTIONS, daemonFiles, health, readinessAt, stopDaemon, readPid, type Health } from "../lib/daemon/lifecycle.ts";
import { startSessionDaemon } from "../lib/daemon/on-demand.ts";
import { startDaemon } from "../lib/daemon/server.ts";
import { exitCodeOf } from "../lib/errors/codes.ts";
import { existsSync, rmSync } from "node:fs";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import type { Session } from "../lib/session/session.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { refuseUntrusted } from "../lib/trust/project-trust.ts";
import { out } from "../lib/util/fd-write.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { cittyArgs } from "./help.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "start, status, stop, restart: print JSON" },
  ready: { type: "boolean", description: "status: ask GET /v1/health/ready and exit 0 only when the daemon is ready (a readiness probe)" },
};

type Action = (typeof DAEMON_ACTIONS)[number];

const USAGE = `usage: mcpx daemon [${DAEMON_ACTIONS.join("|")}] (no action: serve in the foreground until SIGINT/SIGTERM)`;

export default defineCommand({
  meta: { name: "daemon", description: COMMAND_DESCRIPTIONS.daemon },
  args: cittyArgs("daemon", OWN, { name: "action", description: `${DAEMON_ACTIONS.join(", ")}; none: the foreground daemon` }),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("daemon", rawArgs, OWN);
    const [action, ...extra] = parsed.positionals;
    if (extra.length || parsed.rest.length)
      throw new UsageError(`takes at most one action (got ${[...parsed.positionals, ...parsed.rest].join(" ")}); ${USAGE}`);
    if (action !== undefined && !(DAEMON_ACTIONS as readonly string[]).includes(action))
      throw new UsageError(`unknown action "${action}"${suggest(action, DAEMON_ACTIONS)}; ${USAGE}`);
    if (parsed.own.ready && action !== "status") throw new UsageError("--ready is for mcpx daemon status (a readiness probe)");
    if (action === undefined && parsed.own.json)
      throw new UsageError("--json is for mcpx daemon start|status|stop|restart; the foreground daemon prints no JSON");
    const session = sessionFromArgs(parsed);
    if (action !== undefined) {
      process.exitCode =
        parsed.own.ready === true ? await readyStatus(session, parsed.own.json === true) : await manage(action as Action, session, parsed.own.json === true);
      return;
    }
    // every run it serves takes these defaults: an untrusted file may not set one (exit 2, before listening)
    refuseUntrusted(session.trust, "daemon");
    // handled from before the daemon starts: a supervisor may send SIGTERM as soon as it reads the
    // "listening" line, and the default action would leave the socket, servers and runtimes behind.
    // SIGTERM drains (an orchestrator's stop: runs in flight may finish); SIGINT, or a second
    // SIGTERM, ends at once (docs/decisions/0025)
    let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
    let asked: "drain" | "stop" | undefined;
    const act = () => {
      if (daemon && asked) void (asked === "drain" ? daemon.drain() : daemon.stop());
    };
    const onTerm = () => {
      asked = asked === undefined ? "drain" : "stop";
      act();
    };
    const onInt = () => {
      asked = "stop";
      act();
    };
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    try {
      daemon = await startDaemon(session);
      act();
      await daemon.closed;
    } finally {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    }
  },
});

async function manage(action: Action, session: Session, json: boolean): Promise<number> {
  const addr = sessionAddress(session, true);
  if (addr.kind === "tcp" && addr.port === 0)
    throw new UsageError(
      `daemon.address ${formatAddress(addr)}: port 0 is only for the foreground \`mcpx daemon\` (a background one must be found again): give a port`,
    );
  const where = formatAddress(addr);
  const token = session.get("daemon.token");
  const files = daemonFiles(addr, session.env);
  const print = (human: string, data: Record<string, unknown>) => out(json ? `${JSON.stringify({ address: where, ...data })}\n` : `${human}\n`);

  if (action === "status") {
    const running = await health(addr, token);
    if (!running) {
      const stale = readPid(files.pid);
      if (stale !== undefined) rmSync(files.pid, { force: true });
      print(`not running on ${where}${stale !== undefined ? ` (removed a stale pid file for pid ${stale})` : ""}`, { running: false });
      return exitCodeOf("DAEMON_NOT_RUNNING");
    }
    print(describe(running, where, files.log), { running: true, ...running, pidFile: files.pid, log: existsSync(files.log) ? files.log : null });
    return 0;
  }

  let stopped: Awaited<ReturnType<typeof stopDaemon>> | undefined;
  if (action === "stop" || action === "restart") {
    stopped = await stopDaemon(addr, token, files);
    if (action === "stop") {
      if (!stopped) print(`no daemon was running on ${where}`, { running: false, stopped: null });
      else print(stoppedLine(stopped, where), { running: false, stopped });
      return 0;
    }
  }

  // start, or the second half of restart
  refuseUntrusted(session.trust, "daemon");
  const already = action === "start" ? await health(addr, token) : undefined;
  if (already) {
    print(`already running on ${where} (pid ${already.pid}); mcpx daemon restart starts it again with the config as it is now`, {
      running: true,
      started: false,
      pid: already.pid,
    });
    return 0;
  }
  const started = await startSessionDaemon(session, addr, false);
  const human = `${stopped ? `${stoppedLine(stopped, where)}\n` : ""}started on ${started.address} (pid ${started.pid}); its output goes to ${started.log}`;
  print(human, { running: true, started: true, pid: started.pid, log: started.log, ...(stopped ? { stopped } : {}) });
  return 0;
}

/** mcpx daemon status --ready: the readiness answer, exit 0 only when ready (a readiness probe runs this) */
async function readyStatus(session: Session, json: boolean): Promise<number> {
  const addr = sessionAddress(session, true);
  const where = formatAddress(addr);
  const answer = await readinessAt(addr, session.get("daemon.token"));
  if (json) out(`${JSON.stringify({ address: where, running: answer !== undefined, ...answer })}\n`);
  else if (!answer) out(`not running on ${where}\n`);
  else {
    const servers = Object.entries(answer.servers).map(([name, state]) => `${name}: ${state}`);
    out(`${answer.ready ? "ready" : "not ready"} on ${where}${answer.why ? `: ${answer.why}` : ""}\n${servers.map((l) => `  ${l}\n`).join("")}`);
  }
  return answer?.ready ? 0 : exitCodeOf("DAEMON_NOT_READY");
}

function stoppedLine(stopped: { pid: number; forced: boolean; graceMs: number }, where: string): string {
  return stopped.forced
    ? `the daemon on ${where} (pid ${stopped.pid}) did not end within ${stopped.graceMs / 1000} s of SIGTERM and was killed`
    : `stopped the daemon on ${where} (pid ${stopped.pid})`;
}

function describe(h: Health, where: string, log: string): string {
  const rows = [
    `running on ${where} (pid ${h.pid}, mcpx ${h.version}), up ${duration(h.uptimeMs)}`,
    `runs: ${h.runs.active} going, ${h.runs.total} since it started`,
    `config: ${h.config.length ? h.config.join(", ") : "none (defaults and MCPX_* variables)"}`,
    `directory: ${h.cwd}`,
  ];
  if (existsSync(log)) rows.push(`log: ${log}`);
  return rows.join("\n");
}

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
