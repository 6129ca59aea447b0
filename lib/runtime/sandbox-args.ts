// The sandbox (exec.sandbox, docs/security.md, decision 0008): which runs are sandboxed, and the Deno
// permissions a sandboxed run gets. Pure: settings and paths in, a decision or an argv out. The
// permission engine is Deno's own; mcpx only decides what to grant, and grants nothing by default.

import { isAbsolute } from "node:path";
import * as v from "valibot";

export const SANDBOX_MODES = ["auto", "on", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** the door a run came through: auto means on for mcpx_exec, whose callers are agents, and off for the local user's doors */
export type Door = "cli" | "http" | "mcp";

/** the serving process's own exec.sandbox, where it came from, and the door a run came through */
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

/** one exec.sandboxAllow item, as written in a config file */
const SandboxAllowItemSchema = v.strictObject({
  read: v.optional(v.array(v.string())),
  write: v.optional(v.array(v.string())),
  net: v.optional(v.array(v.string())),
  env: v.optional(v.array(v.string())),
});

export interface SandboxAllow {
  read: string[];
  write: string[];
  net: string[];
  env: string[];
}

export const EMPTY_ALLOW: SandboxAllow = { read: [], write: [], net: [], env: [] };

const ALLOW_KEYS = "read (absolute paths), write (absolute paths), net (host or host:port, no scheme), env (variable names)";

/**
 * exec.sandboxAllow's items, merged. Each item is named by its origin in errors; a mistake is an
 * error naming the key and what it accepts, never a grant silently dropped or widened.
 */
export function parseSandboxAllow(items: ReadonlyArray<{ value: unknown; origin: string }>): SandboxAllow {
  const out: SandboxAllow = { read: [], write: [], net: [], env: [] };
  items.forEach(({ value, origin }, i) => {
    const where = `exec.sandboxAllow[${i}] (${origin})`;
    const r = v.safeParse(SandboxAllowItemSchema, value);
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

/**
 * What the channel to the host needs, derived in this ONE place from how the launcher reaches the
 * host (decision 0007): the run's details in a file (a sandboxed Deno may not open /dev/fd/3, so it
 * gets the file's path: read only; the host deletes it once the launcher has shown its token), and a
 * unix socket, for which Deno 2.9 needs read, write and `net=unix:PATH` (measured). Each is scoped
 * to that one path; no variable is needed. Never write on the handoff: a path the sandbox may write
 * is a path it can plant a file in for the next run.
 */
export function channelGrants(channel: { sock: string; handoff: string }): SandboxAllow {
  return { read: [channel.sock, channel.handoff], write: [channel.sock], net: [`unix:${channel.sock}`], env: [] };
}

export interface SandboxRun {
  /** the generated launcher, the runtime bundle, the script: read only */
  files: string[];
  channel: SandboxAllow;
  /** the variables the caller set for this run (ExecOptions.env): the script may read those */
  callerEnv: string[];
  allow: SandboxAllow;
  autoInstall: boolean;
}

/**
 * The Deno permission flags of a sandboxed run: read of the run's own files and the channel, write
 * and net of the channel only, the variables of the channel and the caller; no subprocess, no FFI,
 * no sys info, no remote imports; --no-prompt so nothing ever asks. Everything else is denied by
 * Deno's default, which is what makes the sandbox: these flags only ever add.
 */
export function denoSandboxArgs(run: SandboxRun): string[] {
  const join = (xs: string[]) => [...new Set(xs)].join(",");
  const read = [...run.files, ...run.channel.read, ...run.allow.read];
  const write = [...run.channel.write, ...run.allow.write];
  const net = [...run.channel.net, ...run.allow.net];
  const env = [...run.channel.env, ...run.callerEnv, ...run.allow.env];
  const args = ["--no-prompt", `--allow-read=${join(read)}`];
  if (write.length) args.push(`--allow-write=${join(write)}`);
  if (net.length) args.push(`--allow-net=${join(net)}`);
  if (env.length) args.push(`--allow-env=${join(env)}`);
  // remote modules are network: only what exec.sandboxAllow's net names, and only with autoInstall
  if (!run.autoInstall || run.allow.net.length === 0) args.push("--deny-import");
  else args.push(`--allow-import=${join(run.allow.net)}`);
  return args;
}

/** the variables a sandboxed Deno starts with: what Deno itself needs to find its cache and the registry; the script can read none of them */
export const SANDBOX_PASS_ENV = ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME", "NPM_CONFIG_REGISTRY", "npm_config_registry", "LANG", "TZ", "NO_COLOR"] as const;
