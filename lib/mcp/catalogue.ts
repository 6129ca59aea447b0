// What `mcpx ls` and `mcpx types` read, as one plain value: the servers a script sees, each with where
// it came from and its visible tools (hook tools left out) or why it has none. Built from a pool,
// locally or by the daemon (GET /v1/tools), and rendered by the same commands either way.

import { UsageError } from "../errors/usage-error.ts";
import { suggest } from "../util/did-you-mean.ts";
import type { Pool } from "./pool.ts";
import type { Tool } from "./tool.ts";

export interface CatalogueRow {
  server: string;
  origin: string;
  imported?: string;
  /** the visible tools, when the server listed them */
  tools?: Tool[];
  /** how many resources, resource templates and prompts the server lists; absent where a list failed (the tools still show) */
  counts?: FeatureCounts;
  /** why listing failed */
  error?: string;
  /** why the entry cannot be used (not started) */
  broken?: string;
  /** with broken: the entry is withheld because its file is not trusted (docs/decisions/0015) */
  untrusted?: true;
}

interface FeatureCounts {
  resources: number;
  resourceTemplates: number;
  prompts: number;
}

export interface Catalogue {
  /** every server a script sees (configured and plugins'), in config order */
  servers: string[];
  /** listed servers in config order, then broken entries; only `only` when it is given */
  rows: CatalogueRow[];
}

/**
 * The catalogue of every server, or of `only`; `list: false` gives the names without starting any
 * server. An unknown or broken `only` throws as `mcpx ls NAME` reports it.
 */
export async function readCatalogue(pool: Pool, only?: string, list = true): Promise<Catalogue> {
  const names = pool.names();
  const broken = pool.brokenNames();
  if (only !== undefined && broken.includes(only)) throw pool.brokenError(only)!;
  if (only !== undefined && !names.includes(only))
    throw new UsageError(`unknown server "${only}"${suggest(only, names)}: configured servers are ${names.join(", ") || "none"}`);
  if (!list) return { servers: names, rows: [] };
  const targets = only === undefined ? names : [only];
  // listed concurrently, reported in config order
  const listed = await Promise.all(
    targets.map(async (server): Promise<CatalogueRow> => {
      try {
        const [tools, counts] = await Promise.all([pool.visibleTools(server), featureCounts(pool, server)]);
        return { server, ...pool.from(server)!, tools, ...(counts ? { counts } : {}) };
      } catch (e) {
        return { server, ...pool.from(server)!, error: (e as Error).message };
      }
    }),
  );
  // broken entries are listed, not started: the session's warning already named each with its fix
  const brokenRows =
    only === undefined
      ? broken.map((server) => ({
          server,
          ...pool.from(server)!,
          broken: pool.brokenReason(server)!,
          ...(pool.untrusted(server) ? { untrusted: true as const } : {}),
        }))
      : [];
  return { servers: names, rows: [...listed, ...brokenRows] };
}

/** the server's resource, template and prompt counts (none asked of a server that does not declare them); undefined when a list fails */
export async function featureCounts(pool: Pool, server: string): Promise<FeatureCounts | undefined> {
  try {
    const [resources, resourceTemplates, prompts] = await Promise.all(
      (["resources/list", "resources/templates/list", "prompts/list"] as const).map(async (m) => (await pool.list(server, m)).length),
    );
    return { resources: resources!, resourceTemplates: resourceTemplates!, prompts: prompts! };
  } catch {
    return undefined;
  }
}
