// mcpx-globals.d.ts beside a file script, so editors see the globals mcpx installs. It is written
// from the tool-list cache plus whatever the run listed, so writing it never starts a server.

import { dirname, join } from "node:path";
import { readCachedTools } from "../mcp/tool-list-cache.ts";
import type { Pool } from "../mcp/pool.ts";
import { writeGeneratedFile } from "../paths/content-file.ts";
import { generateDeclarations } from "./declarations.ts";

const GLOBALS_FILE = "mcpx-globals.d.ts";

/** @param cacheDir where the tool-list cache is (Session.cacheDir) */
export async function writeGlobalsBeside(scriptPath: string, cacheDir: string, pool: Pool): Promise<void> {
  // every server a script sees a namespace for: the configured ones and those plugins bring
  const servers = await Promise.all(
    pool
      .names()
      .map((name) => pool.servers[name]!)
      .map(async (cfg) => ({
        name: cfg.name,
        tools: (pool.started(cfg.name) ? await pool.tools(cfg.name).catch(() => undefined) : undefined) ?? readCachedTools(cacheDir, cfg),
      })),
  );
  const text = generateDeclarations(servers.map((s) => ({ name: s.name, tools: s.tools ?? [], unknownTools: s.tools === undefined })));
  writeGeneratedFile(join(dirname(scriptPath), GLOBALS_FILE), text);
}
