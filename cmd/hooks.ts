// mcpx hooks list | explain SERVER.TOOL | test NAME --event FILE — what is in force, what would
// fire for a call, and one hook run against a payload.

import { readFileSync } from "node:fs";
import type { HookFrameBody } from "../lib/exec/frames.ts";
import { effectiveLevel } from "../lib/hooks/dial.ts";
import { matchContextOf, runGate } from "../lib/hooks/gate.ts";
import type { Payload } from "../lib/hooks/types.ts";
import { isAllowed } from "../lib/hooks/allowlist.ts";
import { hookMatches } from "../lib/hooks/match.ts";
import { toolFor } from "../lib/hooks/mcp-hook-tools.ts";
import { MCP_HOOK_EFFECT } from "../lib/hooks/mcp-hook-calls.ts";
import { hookRow } from "../lib/hooks/rows.ts";
import { phasesOf, POINT_NAMES, type Phase, type PointName } from "../lib/hooks/points.ts";
import { findTool, UnknownToolError } from "../lib/mcp/tool-call.ts";
import { out } from "../lib/util/fd-write.ts";
import { suggest } from "../lib/util/did-you-mean.ts";
import { UsageError } from "../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../lib/settings/flags.ts";
import { openEngine } from "../lib/session/engine.ts";
import { sessionFromArgs } from "../lib/session/session.ts";
import { cittyArgs } from "./help.ts";
import type { TrustState } from "../lib/trust/project-trust.ts";
import type { BrokenServer } from "../lib/config/server-config.ts";
import { COMMAND_DESCRIPTIONS, defineCommand } from "./commands.ts";
import { hookCalls } from "../lib/exec/hook-calls.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "Print JSON" },
  event: { type: "string", description: "hooks test: the payload file (JSON; - for stdin)", valueHint: "FILE" },
};

export default defineCommand({
  meta: { name: "hooks", description: COMMAND_DESCRIPTIONS.hooks },
  args: cittyArgs(
    "hooks",
    OWN,
    { name: "action", description: "list, explain or test" },
    { name: "target", description: "SERVER.TOOL (explain) or a hook name (test)" },
  ),
  async run({ rawArgs }) {
    const parsed = parseCommandArgs("hooks", rawArgs, OWN);
    const [action, target, ...extra] = parsed.positionals;
    if (extra.length || !["list", "explain", "test"].includes(action ?? ""))
      throw new UsageError("usage: mcpx hooks list | mcpx hooks explain SERVER.TOOL | mcpx hooks test NAME --event FILE");
    if (parsed.own.event !== undefined && action !== "test") throw new UsageError("--event goes with mcpx hooks test");
    const session = sessionFromArgs(parsed);
    const engine = openEngine(session, { calls: hookCalls(session), untrustedPlugins: "list" });
    const json = parsed.own.json === true;
    try {
      await engine.ready; // plugins' hooks are in force once their servers run
      const { gate } = engine;
      const all = engine.hooksInForce();
      if (action === "list") {
        const rows = all.map(hookRow);
        const servers = gate.policy.hookServers;
        const untrusted = untrustedRows(session.trust, engine.untrustedPlugins);
        if (json) out(JSON.stringify({ hooks: rows, mcpHookServers: servers, untrusted }, null, 2) + "\n");
        else {
          for (const u of untrusted) out(`${u.what}\tnot trusted, not ${u.plugin ? "started" : "in force"}\t${u.file}: mcpx trust ${u.file}\n`);
          for (const r of rows)
            out(`${r.name}\t${r.on}.${r.phase}\t${r.action}\teffect=${r.effect}${r.failure === "closed" ? " failure=closed" : ""}\t${r.origin}\n`);
          if (rows.length === 0) out("no hooks in force\n");
          out(`MCP_HOOK_SERVERS: ${servers.all ? "* (every server)" : servers.names.length ? servers.names.join(", ") : "none"}\n`);
        }
        return;
      }
      if (action === "explain") {
        const dot = target?.indexOf(".") ?? -1;
        if (!target || dot <= 0) throw new UsageError("usage: mcpx hooks explain SERVER.TOOL");
        const server = target.slice(0, dot);
        const names = engine.pool.names();
        if (!names.includes(server))
          throw new UsageError(
            `explain ${target}: unknown server "${server}"${suggest(server, names)}; configured servers are ${names.join(", ") || "none"} (mcpx ls)`,
          );
        // resolved against the catalogue exactly as a call is, so explain and the gate see one tool
        const tool = await findTool(engine.pool, server, target.slice(dot + 1)).catch((e: Error) => {
          throw e instanceof UnknownToolError ? new UsageError(`explain ${target}: ${e.message}`) : e;
        });
        const match = matchContextOf({ call: { server, tool: tool.name, arguments: {} } });
        const rows: Array<Record<string, unknown>> = [];
        for (const phase of phasesOf("call")) {
          for (const h of gate.hooks) {
            if (!hookMatches(h, "call", phase, match)) continue;
            const { level, clampedBy } = effectiveLevel(h.effect, phase, gate.policy.autonomy, gate.policy.max);
            rows.push({ phase, hook: h.name, action: h.action.kind, declared: h.effect, effective: level, clampedBy, origin: h.origin });
          }
          const bound = toolFor("call", phase);
          if (bound) {
            for (const s of engine.pool.names().filter((n) => isAllowed(gate.policy.hookServers, n))) {
              const has = await engine.pool.tools(s).then(
                (ts) => ts.some((t) => t.name === bound),
                () => false,
              );
              if (!has) continue;
              const { level, clampedBy } = effectiveLevel(MCP_HOOK_EFFECT, phase, gate.policy.autonomy, gate.policy.max);
              rows.push({ phase, hook: `${s}.${bound}`, action: "plugin", declared: MCP_HOOK_EFFECT, effective: level, clampedBy, origin: "MCP_HOOK_SERVERS" });
            }
          }
        }
        if (json) out(JSON.stringify(rows, null, 2) + "\n");
        else if (rows.length === 0) out(`no hook would fire for ${target}\n`);
        else
          for (const r of rows) {
            const clamped = r.effective !== r.declared ? ` → ${r.effective} (clamped by ${(r.clampedBy as string[]).join(", ")})` : "";
            out(`call.${r.phase}\t${r.hook}\t${r.action}\teffect ${r.declared}${clamped}\t${r.origin}\n`);
          }
        return;
      }
      // test
      if (!target) throw new UsageError("usage: mcpx hooks test NAME --event FILE");
      const hook = all.find((h) => h.name === target);
      if (!hook) throw new UsageError(`no hook named "${target}": hooks in force are ${all.map((h) => h.name).join(", ") || "none"} (mcpx hooks list)`);
      const file = parsed.own.event as string | undefined;
      if (!file) throw new UsageError("test needs --event FILE: the payload the hook receives (JSON; - for stdin)");
      let payload: Payload;
      try {
        payload = JSON.parse(file === "-" ? await new Response(Bun.stdin.stream()).text() : readFileSync(file, "utf8"));
      } catch (e) {
        throw new UsageError(`--event ${file}: ${(e as Error).message}`);
      }
      const point = (POINT_NAMES as string[]).includes(hook.on) ? (hook.on as PointName) : "call";
      const frames: HookFrameBody[] = [];
      const only = {
        ...gate,
        hooks: [{ ...hook, phase: hook.phase === "observe" ? "before" : hook.phase, on: point, when: {} }],
        policy: { ...gate.policy, hookServers: { all: false as const, names: [] } },
      };
      const decision = await runGate(only, point, (hook.phase === "observe" ? "before" : hook.phase) as Phase, payload, (f) => frames.push(f));
      const report = { hook: hook.name, frame: frames[0], decision };
      out(JSON.stringify(report, null, 2) + "\n");
      if (frames[0]?.failed) process.exitCode = 1;
    } finally {
      await engine.close();
    }
  },
});

/** what `hooks list` shows of hooks and plugins withheld because their file is not trusted (docs/decisions/0015) */
function untrustedRows(trust: TrustState, plugins: readonly BrokenServer[]): Array<{ what: string; file: string; plugin: boolean }> {
  const rows: Array<{ what: string; file: string; plugin: boolean }> = [];
  for (const w of trust.withheld) {
    if (w.setting === "plugins") for (const p of [w.value].flat()) rows.push({ what: `plugin ${String(p)}`, file: w.file, plugin: true });
    else if (w.setting === "hooks" || w.setting?.startsWith("hooks.") || w.setting === "autonomy.max")
      rows.push({ what: `${w.setting} of ${w.file}`, file: w.file, plugin: false });
  }
  for (const p of plugins) rows.push({ what: `plugin ${p.name}`, file: p.origin, plugin: true });
  return rows;
}
