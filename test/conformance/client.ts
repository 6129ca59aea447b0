// The client the MCP conformance suite's client scenarios run: it does what a person at a terminal
// would type against the scenario's server, with dist/mcpx. The suite starts the scenario's servers,
// then runs `bun test/conformance/client.ts URL` with MCP_CONFORMANCE_SCENARIO (and, for some,
// MCP_CONFORMANCE_CONTEXT, e.g. pre-registered client credentials) in the environment, and judges
// what its servers saw.
//
// Every scenario gets its own HOME/XDG sandbox with one server entry, `conf`, for URL
// (with "oauth": {"clientId", "clientSecret": "${CONF_CLIENT_SECRET}"} when the scenario gives a
// pre-registered client in MCP_CONFORMANCE_CONTEXT; with "oauth": {"clientMetadataUrl"} for
// auth/basic-cimd). Then:
//   mcpx ls conf                   the tools; on AUTH_REQUIRED: mcpx auth conf, then ls again
//   mcpx call conf TOOL ARGS       the scenario's tool (the first one listed, or the one it names),
//                                  with the same one-login retry on AUTH_REQUIRED (a step-up); on a
//                                  pseudo-terminal, answered, where the tool asks the person (ON_TERMINAL)
// `mcpx auth` opens the authorization URL with BROWSER, the fake browser that follows the
// authorization server's redirects back to mcpx's loopback callback, as a person's browser would
// after "Allow". Every command's output goes to this process's stderr, which the suite keeps in
// results/<scenario>/stderr.txt.

import { join } from "node:path";
import { BROWSER } from "../e2e/oauth-support.ts";
import { MCPX, sandbox } from "../e2e/harness.ts";
import { onTerminal, type Step } from "../e2e/pty.ts";

/** how many logins one command may ask for before the driver gives up (a server that never accepts) */
const LOGINS_PER_COMMAND = 2;

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) throw new Error("usage: bun test/conformance/client.ts URL (run by the conformance suite)");
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}") as Record<string, unknown>;

/** scenarios whose every listed tool is called */
const EVERY_TOOL = new Set(["sep-2322-client-request-state", "http-invalid-tool-headers"]);

/** what `call` sends for a scenario whose tool needs arguments */
const TOOL_ARGS: Record<string, string[]> = { add_numbers: ["a=2", "b=3"], valid_tool: ["region=us-west1"] };

/**
 * scenarios whose tool asks the person at the terminal (elicitation): its call runs on a
 * pseudo-terminal, answered as a person would, step by step (what the terminal shows, the keys typed);
 * Enter answers the first question, then takes each field's pre-filled default
 */
const ON_TERMINAL: Record<string, Step[]> = {
  "elicitation-sep1034-client-defaults": [
    ["conf asks:", "\r"],
    ["User name", "\r"],
    ["User age", "\r"],
    ["User score", "\r"],
    ["User status", "\r"],
    ["Verification status", "\r"],
  ],
};

const sb = sandbox();
const entry: Record<string, unknown> = { url };
/** the variables the entry's ${VAR} references take (a secret is never written into the config) */
const vars: Record<string, string> = {};
if (typeof context.client_id === "string") {
  // auth/pre-registration: a client the authorization server knows beforehand, as a person configures it
  entry.oauth = { clientId: context.client_id, ...(typeof context.client_secret === "string" ? { clientSecret: "${CONF_CLIENT_SECRET}" } : {}) };
  if (typeof context.client_secret === "string") vars.CONF_CLIENT_SECRET = context.client_secret;
}
if (scenario === "auth/basic-cimd") {
  // where a person would give the URL their Client ID Metadata Document is hosted at; the suite's
  // authorization server expects this one (and does not fetch it)
  entry.oauth = { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
}
sb.write(".mcpx.json", JSON.stringify({ mcpServers: { conf: entry } }, null, 2));

async function mcpx(args: string[]): Promise<{ code: number; out: string; stdout: string }> {
  process.stderr.write(`$ mcpx ${args.join(" ")}\n`);
  const proc = Bun.spawn([MCPX, ...args], { cwd: sb.dir, env: { ...sb.env, ...vars, BROWSER }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  process.stderr.write(out + err + `(exit ${code})\n`);
  return { code, out: out + err, stdout: out };
}

/** runs a command; where it says the server needs a login, logs in (`mcpx auth conf`) and runs it again */
async function withLogin(args: string[]): Promise<{ code: number; out: string; stdout: string }> {
  let res = await mcpx(args);
  for (let i = 0; i < LOGINS_PER_COMMAND && /needs authorization/.test(res.out); i++) {
    if ((await mcpx(["auth", "conf"])).code !== 0) break;
    res = await mcpx(args);
  }
  return res;
}

/** a tool as `mcpx ls --json` shows it */
interface Listed {
  name: string;
  inputSchema?: unknown;
}

const listed = await withLogin(["ls", "conf", "--json"]);
let tools: Listed[] = [];
try {
  tools = (JSON.parse(listed.stdout) as Array<{ tools?: Listed[] }>)[0]?.tools ?? [];
} catch {
  // not JSON: the listing failed, and said why above
}

/**
 * The `mcpx call` commands a scenario asks for, as their arguments (ARGS of `mcpx call conf.TOOL
 * ARGS`), from the tools it listed: the calls the scenario names in its context, with their
 * arguments; those the scenario's description asks a person to make; else its first tool.
 */
function callsFor(): Array<{ tool: string; args: string[] }> {
  const named = (context as { toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }> }).toolCalls;
  if (Array.isArray(named)) return named.map((c) => ({ tool: c.name, args: [JSON.stringify(c.arguments ?? {})] }));
  if (scenario === "json-schema-2020-12-preservation") {
    // the schema mcpx listed for one tool, passed back through the other (`mcpx ls --json | jq`, then `mcpx call`)
    const schema = tools.find((t) => t.name === "json_schema_2020_12_tool")?.inputSchema;
    return [{ tool: "json_schema_echo", args: [JSON.stringify({ schema })] }];
  }
  // each tool once, in the order listed: for sep-2322, two that answer input_required, one whose call
  // must carry neither's state, one whose result names no resultType; for http-invalid-tool-headers,
  // what mcpx lists of tools most of which declare invalid x-mcp-headers (a call to one is a failure)
  if (EVERY_TOOL.has(scenario)) return tools.map((t) => ({ tool: t.name, args: TOOL_ARGS[t.name] ?? [] }));
  const first = tools[0]?.name;
  return first ? [{ tool: first, args: TOOL_ARGS[first] ?? [] }] : [];
}

const steps = ON_TERMINAL[scenario];
for (const { tool, args } of callsFor()) {
  if (steps) {
    process.stderr.write(`$ mcpx call conf.${tool}   (on a terminal)\n`);
    const seen = await onTerminal(sb.dir, { ...sb.env, ...vars, BROWSER }, [MCPX, "call", `conf.${tool}`, ...args], steps);
    process.stderr.write(`${seen.shown}\n(exit ${seen.code}${seen.unmet ? `; never showed ${JSON.stringify(seen.unmet)}` : ""})\n`);
  } else await withLogin(["call", `conf.${tool}`, ...args]);
}
process.stderr.write(`conformance client: ${scenario} done (context keys: ${Object.keys(context).join(", ") || "none"}; ${join(sb.dir)})\n`);
// the suite judges its servers' checks, not this exit code: a scenario may expect a command to fail
process.exit(0);
