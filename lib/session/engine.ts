// The live parts a command works with: the upstream pool, the event bus and the hook gate, wired so
// that every server start passes the server.start point and every lifecycle change reaches the bus.

import { EventBus } from "../events/bus.ts";
import { buildGate } from "../hooks/build-gate.ts";
import { hooksFromSetting } from "../hooks/declared-hooks.ts";
import { runGate } from "../hooks/gate.ts";
import type { Gate, HookCalls } from "../hooks/types.ts";
import type { Hook } from "../hooks/hook.ts";
import type { Observers } from "../hooks/observe.ts";
import { runContext } from "../hooks/run-context.ts";
import { unmatchedServers, unmatchedTools } from "../hooks/when-check.ts";
import { writeCachedTools } from "../mcp/tool-list-cache.ts";
import { Pool } from "../mcp/pool.ts";
import { UpstreamError } from "../mcp/upstream-error.ts";
import { authDir } from "../mcp/oauth/store.ts";
import { eraDir } from "../mcp/protocol-era.ts";
import { stateDir } from "../paths/dirs.ts";
import { progressText } from "../mcp/server-notes.ts";
import type { Sourced } from "../settings/resolve.ts";
import { loadPlugins } from "../plugins/load.ts";
import type { Plugin } from "../plugins/manifest.ts";
import type { BrokenServer } from "../config/server-config.ts";
import type { Session } from "./session.ts";
import type { StatusLine } from "../util/status-line.ts";
import type { Answerer } from "../mcp/server-asks.ts";
import { auditDir, auditTap } from "../audit/audit-tap.ts";
import { SETTINGS, type SettingPath } from "../settings/registry.ts";
import { fanOut, type Tap } from "../telemetry/tap.ts";

export interface Engine {
  pool: Pool;
  bus: EventBus;
  gate: Gate;
  observers: Observers;
  /**
   * every hook in force now, in the order they run: the gate's (config, then plugins), then the
   * observe hooks, which the gate does not hold because they run from the bus (config, then plugins)
   */
  hooksInForce(): Hook[];
  plugins: Plugin[];
  /** plugins whose manifest is not trusted, not started (untrustedPlugins: "list") */
  untrustedPlugins: BrokenServer[];
  /** settles once every plugin's server has started (or failed to): only then are its hooks in force */
  ready: Promise<void>;
  /** who listens at the instrumentation points (the gate carries it: Gate.tap); absent: nobody */
  tap?: Tap;
  close(): Promise<void>;
}

/** what the engine owns that a call reaches beside the gate: the pool it goes to, the bus its events go on */
export type EngineParts = Pick<Engine, "pool" | "bus">;

export interface EngineOptions {
  /**
   * how hook actions call tools and run modules, given the engine's pool and bus:
   * lib/exec/hook-calls.ts hookCalls(session), through the gate's call point
   */
  calls: (engine: EngineParts) => HookCalls;
  ask?: (question: string) => Promise<boolean | undefined>;
  /**
   * who answers what an upstream server asks (elicitation, sampling): the terminal
   * (lib/session/terminal-answers.ts), the client of `mcpx serve` (lib/mcpserver/client-asks.ts);
   * absent: nobody, and neither is declared upstream. Roots are the session's cwd in every case.
   */
  answers?: Answerer;
  /** where slow work is shown while it goes on (a server starting, a tool's progress): the CLI's status line */
  status?: StatusLine;
  /** extra hooks after the configured ones (per-run script hooks) */
  extraHooks?: Hook[];
  /** taps beside the audit log (lib/telemetry/tap.ts), told every run, upstream call and hook in the same order */
  taps?: Tap[];
  /**
   * a plugin whose manifest is not trusted (docs/decisions/0015): "refuse" (the default) fails the
   * command naming it (exit 2); "list", for commands that only show what is configured, keeps it as an
   * entry that is not started, with a warning
   */
  untrustedPlugins?: "refuse" | "list";
}

export function openEngine(session: Session, opts: EngineOptions): Engine {
  // the hooks setting is parsed here, before anything runs: a bad hook is a config error (exit 2)
  const hooks = [...hooksFromSetting((session.settings.get("hooks")!.items ?? []) as Sourced[], session.cwd, session.env), ...(opts.extraHooks ?? [])];
  const bus = new EventBus();
  let gate: Gate | undefined;
  const { plugins, untrusted } = loadPlugins(session, session.config.servers);
  if (untrusted.length > 0 && opts.untrustedPlugins !== "list") throw untrusted[0]!.error;
  for (const u of untrusted) session.log("warn", `plugin ${u.name} is not started: ${u.error.message}`);
  const servers = { ...session.config.servers, ...Object.fromEntries(plugins.map((p) => [p.name, p.server])) };
  // a plugin's hooks are in force as long as it is configured; each starts its plugin's server when
  // it runs, and fails (closed ones refuse) when that server cannot be started (run-action.ts)
  const allPluginHooks = plugins.flatMap((p) => p.hooks);
  const pluginHooks = () => allPluginHooks;
  // a `when` naming no configured server (or a tool its server does not list) loads but never
  // fires: said once, with a did-you-mean, so a guard that guards nothing does not pass in silence
  const allHooks = () => [...hooks, ...allPluginHooks];
  for (const w of unmatchedServers(allHooks(), [...Object.keys(servers), ...Object.keys(session.config.broken ?? {})])) session.log("warn", w, "hooks");
  const toolsChecked = new Set<string>();
  // a server's question on the terminal is not drawn over by the status line
  const { answers: asked, status } = opts;
  const answerer: Answerer | undefined = asked && status ? { ...asked, elicit: (server, params) => status.hold(() => asked.elicit(server, params)) } : asked;
  const pool = new Pool(servers, {
    log: (level, message, source = "upstream") => session.log(level, message, source),
    logLevel: session.get("logging.level"),
    callTimeoutMs: session.get("mcp.callTimeout"),
    startTimeoutMs: session.get("mcp.startTimeout"),
    maxMessageBytes: session.get("mcp.maxMessage"),
    baseEnv: session.env,
    authDir: authDir(session.env),
    eraDir: eraDir(stateDir(session.env)),
    asks: { answerer, root: session.cwd, log: (level, message, source) => session.log(level, message, source) },
    broken: { ...session.config.broken, ...Object.fromEntries(untrusted.map((u) => [u.name, u])) },
    onTools: (server, tools) => {
      if (!toolsChecked.has(server)) {
        toolsChecked.add(server);
        for (const w of unmatchedTools(
          allHooks(),
          server,
          tools.map((t) => t.name),
        ))
          session.log("warn", w, "hooks");
      }
      try {
        writeCachedTools(session.cacheDir, session.config.servers[server]!, tools);
      } catch (e) {
        session.log("debug", `catalogue cache not written: ${(e as Error).message}`);
      }
    },
    onEvent: (kind, data) => bus.publish(kind, data as never),
    // only where the line is drawn: without a terminal nobody sees it, and a call asks for no progress for it
    onProgress: !opts.status?.live
      ? undefined
      : (server, tool, p) => {
          if (p === undefined) opts.status!.done(`call:${server}.${tool}`);
          else opts.status!.set(`call:${server}.${tool}`, progressText(server, tool, p));
        },
    startGate: async (cfg, phase, info) => {
      if (phase === "before")
        opts.status?.set(`start:${cfg.name}`, `starting ${cfg.name} (${cfg.kind === "stdio" ? [cfg.command, ...cfg.args].join(" ") : cfg.url})…`);
      else opts.status?.done(`start:${cfg.name}`);
      if (!gate || gate.hooks.length === 0) return;
      const server = { name: cfg.name, kind: cfg.kind, ...(cfg.kind === "stdio" ? { command: cfg.command } : { url: cfg.url }) };
      const payload = {
        // the run whose call started the server, where one did (a daemon's pooled server outlives it)
        runId: runContext.getStore()?.runId,
        server,
        tools: info.tools ? await info.tools() : undefined,
        error: info.error ? { name: info.error.name, message: info.error.message, code: (info.error as { code?: string }).code } : undefined,
      };
      const d = await runGate(gate, "server.start", phase, payload, (f) => runContext.getStore()?.hookFrame(f));
      if (d.refused) throw new UpstreamError(`server "${cfg.name}" was refused by hook ${d.refused.hook}: ${d.refused.reason}`, cfg.name, "SERVER_REFUSED");
    },
  });
  const tap = fanOut([auditOf(session), ...(opts.taps ?? [])]);
  const built = buildGate({ session, pool, bus, hooks, dynamicHooks: pluginHooks, ask: opts.ask, calls: opts.calls({ pool, bus }), tap });
  gate = built.gate;
  const ready = Promise.all(
    plugins.map((p) =>
      pool.tools(p.name).then(
        () => {},
        (e) =>
          session.log(
            "warn",
            `plugin ${p.name} (${p.manifest}): its server did not start: each of its hooks fails when ` +
              `it fires (a closed one refuses) until it does: ${(e as Error).message}`,
          ),
      ),
    ),
  ).then(() => {});
  gate.ready = ready;
  return {
    pool,
    bus,
    gate,
    plugins,
    untrustedPlugins: untrusted,
    ready,
    ...(tap ? { tap } : {}),
    observers: built.observers,
    hooksInForce: () => [...gate.hooks, ...[...hooks, ...pluginHooks()].filter((h) => h.phase === "observe")],
    async close() {
      opts.status?.close();
      await ready;
      // the pool first: its server.stopped events ("pool closed") still reach the observers
      await pool.close();
      const grace = session.get("hooks.observeGrace");
      const cut = await built.observers.drain(grace);
      if (cut.length) {
        const [s, were] = cut.length > 1 ? ["s", "were"] : ["", "was"];
        const said = `observe hook${s} ${cut.join(", ")} still ran ${grace}ms after the command ended and ${were} ended`;
        session.log("warn", `${said} (hooks.observeGrace; raise it, or make the hook quicker)`, "hooks");
      }
      built.observers.stop();
      // last: what the pool's closing and the observers told the taps is handed over too (bounded: tap.ts Tap.close)
      await tap?.close?.();
    },
  };
}

const MiB = 1024 * 1024;

/** the audit log of this process (lib/audit), unless audit.enabled is off */
function auditOf(session: Session): Tap | undefined {
  if (!session.get("audit.enabled")) return undefined;
  return auditTap({
    dir: auditDir(stateDir(session.env)),
    maxBytes: Math.max(0, session.get("audit.maxSize")) * MiB,
    keep: Math.max(0, session.get("audit.keep")),
    values: session.get("audit.values"),
    // mcpx's own secrets (daemon.token, model.apiKey) are never written, under whatever key they travel
    secrets: SETTINGS.filter((d) => d.secret).map((d) => String(session.get(d.path as SettingPath) ?? "")),
    warn: (m) => session.log("warn", m, "audit"),
  });
}
