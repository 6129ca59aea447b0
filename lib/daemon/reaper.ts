// The idle reaper: the daemon's upstream pool is shared by every run, and a server that no run has
// used for daemon.idleTimeout is stopped (the next call starts it again). The decision is a pure
// function over what the pool reports; the timer is the only I/O.

import type { Pool } from "../mcp/pool.ts";

export interface ServerUse {
  server: string;
  started: boolean;
  /** ms timestamp of the last use; undefined = never used since it started */
  lastUsed: number | undefined;
}

/** the started servers whose last use is at least idleMs ago, in pool (config) order; idleMs 0 = never */
export function idleServers(servers: readonly ServerUse[], now: number, idleMs: number): string[] {
  if (idleMs <= 0) return [];
  return servers.filter((s) => s.started && s.lastUsed !== undefined && now - s.lastUsed >= idleMs).map((s) => s.server);
}

/**
 * How often the reaper looks: a quarter of the idle timeout, within these bounds, so a server is
 * stopped at most 25% late and a short test timeout does not spin. Change only with docs/daemon.md.
 */
const REAP_MIN_INTERVAL_MS = 250;
const REAP_MAX_INTERVAL_MS = 30_000;

/**
 * @param keep servers never reaped: a plugin's hooks are in force only while its server runs, so
 * stopping it for being idle would silently drop them
 */
export function startReaper(pool: Pool, idleMs: number, keep: readonly string[] = [], now: () => number = Date.now): { stop(): void } {
  if (idleMs <= 0) return { stop() {} };
  const every = Math.min(REAP_MAX_INTERVAL_MS, Math.max(REAP_MIN_INTERVAL_MS, Math.floor(idleMs / 4)));
  const timer = setInterval(() => {
    const uses = pool
      .names()
      .filter((s) => !keep.includes(s))
      .map((server) => ({ server, started: pool.started(server), lastUsed: pool.lastUsed(server) }));
    for (const server of idleServers(uses, now(), idleMs)) void pool.restart(server, "idle");
  }, every);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
