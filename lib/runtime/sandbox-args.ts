// The Deno permissions of a sandboxed run (exec.sandbox, docs/security.md, decision 0008), and the
// environment it starts from. Pure but for the DENO_DIR it makes: grants and paths in, an argv out.
// The permission engine is Deno's own; mcpx only decides what to grant (lib/exec/door-policy.ts), and
// grants nothing by default. Loaded by a sandboxed run alone (runner.ts imports it when it needs it).

import { sandboxDenoDir } from "./sandbox-deno-dir.ts";

export interface SandboxAllow {
  read: string[];
  write: string[];
  net: string[];
  env: string[];
}

/** grants nothing */
export const EMPTY_ALLOW: SandboxAllow = { read: [], write: [], net: [], env: [] };

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
const SANDBOX_PASS_ENV = ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME", "NPM_CONFIG_REGISTRY", "npm_config_registry", "LANG", "TZ", "NO_COLOR"] as const;

/**
 * A sandboxed run starts from an environment of its own: only what Deno needs to find its cache and
 * the registry, from the serving process's environment, and a DENO_DIR of mcpx's (sandbox-deno-dir.ts).
 * mcpx's own environment (API keys, tokens) is not there at all, and neither is anything the caller
 * set: those variables are set inside the run, after Deno has started (launcher/handoff.ts), so no
 * LD_PRELOAD, DENO_* or allocator variable a caller names can change how the runtime starts.
 */
export function sandboxEnv(env: Record<string, string | undefined>, cacheDir: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of SANDBOX_PASS_ENV) if (env[name] !== undefined) out[name] = env[name];
  out.DENO_DIR = sandboxDenoDir(cacheDir, env);
  return out;
}
