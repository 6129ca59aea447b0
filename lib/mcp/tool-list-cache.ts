// The tool-list cache: the last tool list seen for each server, keyed by its config, so
// mcpx-globals.d.ts can describe servers a run never started (servers start lazily) without starting
// them to find out, and `mcpx call` can skip a tools/list (lib/exec/cached-call.ts). Not the catalogue
// of lib/mcp/catalogue.ts, which is what `mcpx ls` shows of servers it has started.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerConfig } from "../config/servers.ts";
import { sha256 } from "../paths/content-file.ts";
import { stableStringify } from "../util/stable-json.ts";
import type { Tool } from "./pool.ts";

function file(cacheDir: string, server: ServerConfig): string {
  const { origin: _o, ...identity } = server;
  return join(cacheDir, "catalog", `${sha256(stableStringify(identity)).slice(0, 24)}.json`);
}

export function readCachedTools(cacheDir: string, server: ServerConfig): Tool[] | undefined {
  try {
    return JSON.parse(readFileSync(file(cacheDir, server), "utf8")) as Tool[];
  } catch {
    return undefined;
  }
}

export function writeCachedTools(cacheDir: string, server: ServerConfig, tools: Tool[]): void {
  const path = file(cacheDir, server);
  mkdirSync(join(cacheDir, "catalog"), { recursive: true });
  writeFileSync(path, JSON.stringify(tools));
}
