// GET /v1/tools: the daemon's catalogue, as `mcpx ls` and `mcpx types` read it locally (visible
// tools only: hook tools are never listed). `server=NAME` lists one server; `list=none` gives the
// server names without starting any.

import { readCatalogue } from "../mcp/catalogue.ts";
import type { Handler } from "./context.ts";
import { errorResponse, json } from "./http.ts";
import { catchThrown } from "./thrown.ts";

export const toolsRoute: Handler = async (_req, { deps, url }) => {
  const list = url.searchParams.get("list");
  if (list !== null && list !== "none") return errorResponse(400, "BAD_REQUEST", `list=${list}: the only value is none (the server names alone)`);
  const server = url.searchParams.get("server") ?? undefined;
  return json(await catchThrown(async () => ({ catalogue: await readCatalogue(deps.engine.pool, server, list === null) })));
};
