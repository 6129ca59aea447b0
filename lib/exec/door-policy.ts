// What a serving process puts on the runs of one door, read once per run from its session: the
// sandbox (exec.sandbox with its origin, exec.sandboxAllow parsed, exec.autoInstall; docs/security.md,
// decision 0008), and the time and memory bounds. The door decides here; the Deno permissions a
// sandboxed run gets from these are made by lib/runtime/sandbox-args.ts. An agent's run (mcpx_exec:
// code from whatever the model wrote) gets exec.agentTimeout and exec.agentMaxHeap by default, so a
// busy loop or a memory bomb ends as an error instead of taking the host; the CLI and /v1/exec keep
// no time limit by default, and exec.maxHeap (off by default) on every door.

import { isAbsolute } from "node:path";
import * as v from "valibot";
import type { Session } from "../session/session.ts";
import { SettingsError, type Sourced } from "../settings/resolve.ts";
import { stricterLimit } from "../hooks/policy.ts";
import { once } from "../util/once.ts";
import type { SandboxAllow } from "../runtime/sandbox-args.ts";
import type { SandboxEngine } from "../settings/choices.ts";
import type { Door } from "../telemetry/tap.ts";

export const SANDBOX_MODES = ["auto", "on", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * the serving process's own exec.sandbox, where it came from, and the door a run came through (Door:
 * lib/telemetry/tap.ts); auto means on for mcpx_exec, whose callers are agents, and off for the local user's doors
 */
export interface SandboxPolicy {
  setting: SandboxMode;
  origin: string;
  door: Door;
}

export type SandboxDecision = { ok: true; on: boolean } | { ok: false; message: string };

const DOOR_NAME: Record<Door, string> = { cli: "the CLI", http: "POST /v1/exec", mcp: "mcpx_exec" };

function effective(mode: SandboxMode, door: Door): boolean {
  return mode === "auto" ? door === "mcp" : mode === "on";
}

/**
 * Whether one run is sandboxed: the serving process's setting, tightened by what the run asks for.
 * A run may ask for on (or auto, where auto means on for its door) over an unsandboxed server; it may
 * not ask for off where the server's own setting sandboxes it: that request is refused, not obeyed.
 */
export function decideSandbox(requested: SandboxMode | undefined, policy: SandboxPolicy): SandboxDecision {
  const own = effective(policy.setting, policy.door);
  if (requested === undefined) return { ok: true, on: own };
  const asked = effective(requested, policy.door);
  if (own && !asked) {
    return {
      ok: false,
      message:
        `sandbox "${requested}" was asked for, but this server's exec.sandbox ` +
        `is ${policy.setting} (${policy.origin}), which sandboxes runs ` +
        `from ${DOOR_NAME[policy.door]}: a run may tighten the sandbox, never loosen it. Leave ` +
        `sandbox out (or ask for "on"); to run unsandboxed, set exec.sandbox off where the server ` +
        `runs (MCPX_EXEC_SANDBOX=off, --sandbox off)`,
    };
  }
  return { ok: true, on: own || asked };
}

/** one exec.sandboxAllow item, as written in a config file; built once asked for, as most runs have none (lib/util/once.ts) */
const sandboxAllowItemSchema = once(() =>
  v.strictObject({
    read: v.optional(v.array(v.string())),
    write: v.optional(v.array(v.string())),
    net: v.optional(v.array(v.string())),
    env: v.optional(v.array(v.string())),
  }),
);

const ALLOW_KEYS = "read (absolute paths), write (absolute paths), net (host or host:port, no scheme), env (variable names)";

/**
 * exec.sandboxAllow's items, merged. Each item is named by its origin in errors; a mistake is an
 * error naming the key and what it accepts, never a grant silently dropped or widened.
 */
export function parseSandboxAllow(items: ReadonlyArray<{ value: unknown; origin: string }>): SandboxAllow {
  const out: SandboxAllow = { read: [], write: [], net: [], env: [] };
  items.forEach(({ value, origin }, i) => {
    const where = `exec.sandboxAllow[${i}] (${origin})`;
    const r = v.safeParse(sandboxAllowItemSchema(), value);
    if (!r.success) {
      const issue = r.issues[0]!;
      const key = (issue.path ?? []).map((p) => p.key).join(".");
      const what = issue.expected === "never" ? "unknown key" : `expected ${issue.expected}, got ${JSON.stringify(issue.input)}`;
      throw new Error(`${where}${key ? ` key ${key}` : ""}: ${what}: an item is an object with ${ALLOW_KEYS}`);
    }
    for (const key of ["read", "write"] as const) {
      for (const p of r.output[key] ?? []) {
        if (!isAbsolute(p) || p.includes(","))
          throw new Error(`${where} key ${key}: "${p}" is not an absolute path (without commas): ${key} takes absolute paths`);
        out[key].push(p);
      }
    }
    for (const h of r.output.net ?? []) {
      if (!/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(h))
        throw new Error(`${where} key net: "${h}" is not a host or host:port (no scheme, no path, e.g. "api.example.com:443" or "127.0.0.1:8080")`);
      out.net.push(h);
    }
    for (const name of r.output.env ?? []) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`${where} key env: "${name}" is not a variable name`);
      out.env.push(name);
    }
  });
  return out;
}

/** what execute() needs to sandbox a run (ExecContext.sandbox) */
export interface SandboxContext {
  policy: SandboxPolicy;
  allow: SandboxAllow;
  autoInstall: boolean;
  /** exec.sandboxEngine, and where it came from */
  engine: { value: SandboxEngine; origin: string };
}

export function sandboxContext(session: Pick<Session, "settings" | "get">, door: Door): SandboxContext {
  const s = session.settings.get("exec.sandbox")!;
  let allow: SandboxAllow;
  try {
    allow = parseSandboxAllow((session.settings.get("exec.sandboxAllow")!.items ?? []) as Sourced[]);
  } catch (err) {
    throw new SettingsError((err as Error).message);
  }
  const engine = session.settings.get("exec.sandboxEngine")!;
  return {
    policy: { setting: s.value as SandboxMode, origin: s.origin, door },
    allow,
    autoInstall: session.get("exec.autoInstall"),
    engine: { value: engine.value as SandboxEngine, origin: engine.origin },
  };
}

/**
 * What `mcpx serve` and the daemon (which mounts /mcp) say on stderr at start when mcpx_exec would run
 * code unsandboxed; undefined when it is sandboxed. Also checks exec.sandboxAllow, so a bad one stops
 * the server at start rather than failing every run.
 */
export function unsandboxedWarning(session: Pick<Session, "settings" | "get">, who: string): string | undefined {
  const ctx = sandboxContext(session, "mcp");
  const d = decideSandbox(undefined, ctx.policy);
  if (d.ok && d.on) return undefined;
  return (
    `${who}: exec.sandbox is ${ctx.policy.setting} (${ctx.policy.origin}): mcpx_exec runs the ` +
    `code any MCP client sends UNSANDBOXED, with this user's files, network, processes and ` +
    `environment (docs/security.md)`
  );
}

export interface RunLimits {
  /** 0 = none beyond the run's own timeoutMs */
  timeoutMs: number;
  timeoutFrom: string;
  /** 0 = none */
  heapMb: number;
  heapFrom: string;
  /** exec.workspaceQuota, in MiB; 0 = none */
  workspaceQuotaMb: number;
  /** exec.artifactsMax, in MiB; 0 = none */
  artifactsMaxMb: number;
}

export function runLimits(session: Pick<Session, "get">, door: Door): RunLimits {
  const own = session.get("exec.maxHeap");
  const workspaceQuotaMb = session.get("exec.workspaceQuota");
  const artifactsMaxMb = session.get("exec.artifactsMax");
  if (door !== "mcp") return { timeoutMs: 0, timeoutFrom: "exec.timeout / --timeout", heapMb: own, heapFrom: "exec.maxHeap", workspaceQuotaMb, artifactsMaxMb };
  const agentHeap = session.get("exec.agentMaxHeap");
  const heapMb = stricterLimit(own, agentHeap);
  return {
    timeoutMs: session.get("exec.agentTimeout"),
    timeoutFrom: "exec.agentTimeout, the limit of every mcpx_exec run",
    heapMb,
    heapFrom: heapMb === agentHeap ? "exec.agentMaxHeap" : "exec.maxHeap",
    workspaceQuotaMb,
    artifactsMaxMb,
  };
}
