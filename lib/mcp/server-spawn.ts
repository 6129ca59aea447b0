// How a stdio server is started, in one place: the transport starts it so, and `mcpx call` starts
// it so before it has read its config (early-server.ts), so that the two starts can be compared.

import { Lineage } from "../process/lineage.ts";

/** what the SDK's stdio transport passes a server from mcpx's own environment whatever `env` says (its DEFAULT_INHERITED_ENV_VARS) */
const INHERITED = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** a stdio server's start, exactly: what it is started with, all of it */
export interface ServerSpawn {
  cmd: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

/**
 * The variables a stdio server entry is given (StdioParams.env): the environment mcpx was given
 * (baseEnv) without mcpx's own variables, then the entry's `env` (docs/decisions/0002).
 */
export function serverEnv(baseEnv: Readonly<Record<string, string | undefined>>, entryEnv: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (v !== undefined && !k.startsWith("MCPX_") && k !== "BUN_BE_BUN") env[k] = v;
  return Object.assign(env, entryEnv);
}

/** what a server with these params is started with: the SDK transport's inherited variables, then the params' own */
export function serverSpawn(params: {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string | undefined;
}): ServerSpawn {
  const env: Record<string, string> = {};
  for (const k of INHERITED) {
    const v = process.env[k];
    if (v !== undefined && !v.startsWith("()")) env[k] = v; // the SDK skips shell functions too
  }
  Object.assign(env, params.env);
  return { cmd: [params.command, ...params.args], env, cwd: params.cwd };
}

/**
 * The lineage a stdio server starts in, made before it is spawned: what the server leaves behind
 * (a child in a session of its own, a double-forked daemon) ends when the server does, whether it
 * was stopped or crashed. Its marker is added to the spawn's environment, outside ServerSpawn, so
 * that two starts still compare equal. Scanned only at its end (lineage.ts): a server may live for
 * as long as a daemon does.
 */
export function serverLineage(): Lineage {
  return new Lineage(`server-${crypto.randomUUID()}`);
}
