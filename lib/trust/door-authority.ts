// Who may turn which knob of a run (design §7, decision 0017): one table, every field of
// ExecOptions with what each kind of caller may set in it. Parity is of behaviour, not of
// authority: every door runs the same launcher, but a caller may declare only what it could do
// itself. The local user (the CLI, /v1 on the unix socket, /v1 over TCP with the token) could run
// any program anyway; an agent (mcpx_exec, mcpx_call on `mcpx serve` and the daemon's /mcp) is
// code in a sandbox, which cannot start a process, set a process's environment, reach the network
// past the gate, or widen its own sandbox. A refusal names the field and says why.

import { isPlainObject } from "../util/json-type.ts";

/**
 * who is asking: the user (the CLI, /v1 on the unix socket or over TCP with the token) or an agent
 * (mcpx_exec and mcpx_call on `mcpx serve` and the daemon's /mcp); docs/security.md has the doors
 */
export type Caller = "user" | "agent";

/**
 * Hook actions an agent may not declare for its run: `run` and `module` start a process as the
 * user, outside the sandbox; `prompt` sends text to the configured model with the user's key,
 * which sandboxed code cannot reach. A `plugin` hook is a tool call, and every tool call passes the
 * gate's call point, so it can do no more than the agent's own calls.
 */
const AGENT_REFUSED_HOOK_ACTIONS = ["run", "module", "prompt"] as const;

/**
 * Variable names an agent may never set, sandboxed or not: each changes how a runtime or the C
 * library starts (LD_PRELOAD runs native code before any permission applies; DENO_*, BUN_*,
 * NODE_* options, certificates and caches; GLIBC_TUNABLES and MALLOC_* tune the allocator).
 * Widen only with a decision record: a name missing here is a way out of the sandbox.
 */
const AGENT_REFUSED_ENV = /^(LD_|DENO_|BUN_|NODE_|NPM_CONFIG_|npm_config_|MALLOC_|GLIBC_TUNABLES$|MCPX_)/;

/**
 * Run settings an agent may not carry: each lowers what the hooks in force may do (the ceiling on
 * their effects) or how long they have (a guard that times out fails open unless it fails closed),
 * and those hooks are the guards set for the agent, not its own. Lowering them is the user's to do.
 */
const AGENT_REFUSED_SETTINGS = ["hooks.autonomy", "autonomy.max", "hooks.timeout", "hooks.mcpTimeout"] as const;

/** what a caller may do with one field: set it freely, set it within a check, or not at all */
type Rule = { allow: true } | { allow: false; why: string } | { check: (value: unknown) => string | undefined };

const ANYONE: Rule = { allow: true };

/** one row per ExecOptions key (the schema's entries: a unit test fails when a key has no row) */
export const EXEC_FIELDS: Record<string, { what: string; user: Rule; agent: Rule }> = {
  source: { what: "the script's text", user: ANYONE, agent: ANYONE },
  // mcpx_exec's own, no ExecOptions field: lib/approvals/exec-run.ts turns it into the paused run's
  // request, whose every field then passes its own row. An agent may resume an approval the user
  // decided; deciding one is the user's alone (mcpx approve, mcpx reject): no door an agent reaches writes one.
  resume: {
    what: "a paused run to resume, once the user decided its approval (mcpx_exec only)",
    user: { allow: false, why: "POST /v1/exec resumes no paused run: mcpx_exec does" },
    agent: ANYONE,
  },
  file: {
    what: "a script file of the caller's",
    user: ANYONE,
    agent: { allow: false, why: "an agent sends its code as source; it names no file of the user's" },
  },
  name: { what: "script.name", user: ANYONE, agent: ANYONE },
  args: { what: "the script's arguments", user: ANYONE, agent: ANYONE },
  export: { what: "the export to call", user: ANYONE, agent: ANYONE },
  script: { what: "inline phases, spliced into the run's own launcher: they run inside the run, sandbox and all", user: ANYONE, agent: ANYONE },
  hooks: { what: "script- and call-point hooks for this run (its own calls only), capped at refuse", user: ANYONE, agent: { check: agentHooks } },
  runtime: { what: "the runtime (a sandboxed run is always Deno)", user: ANYONE, agent: ANYONE },
  sandbox: { what: "exec.sandbox for this run: tighten only (lib/exec/door-policy.ts decideSandbox)", user: ANYONE, agent: ANYONE },
  timeoutMs: { what: "the run's wall limit", user: ANYONE, agent: ANYONE },
  timeout: { what: "the run's wall limit", user: ANYONE, agent: ANYONE },
  env: { what: "variables the script reads; for a sandboxed run a view inside it, not the runtime's environment", user: ANYONE, agent: { check: agentEnv } },
  stdin: { what: "the script's stdin", user: ANYONE, agent: ANYONE },
  cwd: { what: "the script's working directory", user: ANYONE, agent: ANYONE },
  output: { what: "how the answer is written", user: ANYONE, agent: ANYONE },
  delivery: { what: "how the run's artifacts reach the caller", user: ANYONE, agent: ANYONE },
  settings: {
    what: "the caller's own limits: the stricter of each and the server's applies",
    user: ANYONE,
    agent: { check: agentSettings },
  },
};

/**
 * The first field of a run request that this caller may not set, said as "field: why", or
 * undefined when every field it set is its to set. `request` is the body as sent (before defaults).
 */
export function refusedField(caller: Caller, request: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined) continue;
    const row = EXEC_FIELDS[key];
    // an unknown key is the schema's to refuse, with the accepted keys
    if (!row) continue;
    const rule = row[caller];
    if ("allow" in rule) {
      if (!rule.allow) return `${key}: ${rule.why}`;
      continue;
    }
    const why = rule.check(value);
    if (why) return `${key}${why}`;
  }
  return undefined;
}

function agentHooks(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const [i, hook] of value.entries()) {
    if (!isPlainObject(hook)) continue;
    for (const action of AGENT_REFUSED_HOOK_ACTIONS) {
      if (!Object.hasOwn(hook, action)) continue;
      return (
        `[${i}].${action}: an agent's run may not declare a ${action} hook: it would ` +
        `${action === "prompt" ? "send text to the model with the user's key" : "start a process as the user, outside the sandbox"}. ` +
        `Per-run hooks from an MCP client may be plugin hooks (a tool call, through the hook gate); ` +
        `run, module and prompt hooks belong in the server's own config (the hooks setting)`
      );
    }
  }
  return undefined;
}

function agentEnv(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const bad = Object.keys(value).filter((k) => AGENT_REFUSED_ENV.test(k));
  if (bad.length === 0) return undefined;
  return (
    `: an agent's run may not set ${bad.map((k) => JSON.stringify(k)).join(", ")}: variables named LD_*, DENO_*, BUN_*, ` +
    `NODE_*, npm_config_*, MALLOC_*, GLIBC_TUNABLES or MCPX_* change how a runtime or the C library starts, ` +
    `which is a way out of the sandbox. Pass the value under another name (the script reads it with Deno.env.get or process.env)`
  );
}

function agentSettings(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const bad = AGENT_REFUSED_SETTINGS.filter((k) => Object.hasOwn(value, k));
  if (bad.length === 0) return undefined;
  return (
    `: an agent's run may not set ${bad.map((k) => JSON.stringify(k)).join(", ")}: the hook ceiling and the hook timeouts bind the ` +
    `guards set for the agent (a refusal above the ceiling is dropped; a guard that times out fails open). ` +
    `An agent may carry mcp.callTimeout and hooks.retryBudget; the user sets the rest in the config`
  );
}
