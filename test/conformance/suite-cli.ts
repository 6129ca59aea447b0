// Where the conformance suite's CLI is: MCPX_CONFORMANCE_CLI (the path of its dist/index.js), else
// @modelcontextprotocol/conformance in node_modules; undefined when neither. For run.ts and client-run.ts.

import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

export function findCli(): string | undefined {
  if (process.env.MCPX_CONFORMANCE_CLI) return process.env.MCPX_CONFORMANCE_CLI;
  try {
    return Bun.resolveSync("@modelcontextprotocol/conformance/dist/index.js", ROOT);
  } catch {
    return undefined;
  }
}
