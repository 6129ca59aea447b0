// The settings registry: one declaration per setting. The config key, the MCPX_* variable, the
// flags, --help text, docs/settings.md and the /v1/settings rows are all derived from this table,
// and test/unit/settings-surfaces.test.ts fails when a setting is unreachable from any of them. A
// declaration's shape is setting-decl.ts; the names and lookups derived from the table, setting-names.ts.

import { LEVELS, RUNTIMES, SANDBOX_ENGINES } from "./choices.ts";
import { IMPORT_KINDS } from "../config/import-kinds.ts";
import { EVERY, type CommandName, type SettingDecl } from "./setting-decl.ts";

/** commands that run scripts (serve and daemon: the defaults for runs whose request leaves a field out) */
const RUNS: readonly CommandName[] = ["run", "exec", "serve", "daemon"];
/** commands that take --remote: where the daemon is, and whether one is started for them */
const REMOTES: readonly CommandName[] = ["run", "exec", "call", "resource", "prompt", "ls", "types", "search", "approvals", "approve", "reject", "audit"];
/** commands whose runs, calls and hooks the audit log records (lib/audit) */
const AUDITED: readonly CommandName[] = ["run", "exec", "call", "resource", "prompt", "daemon", "serve"];
/** commands through which hooks can fire (or be inspected) */
const HOOKED: readonly CommandName[] = ["run", "exec", "call", "resource", "prompt", "settings", "hooks", "daemon", "serve"];

export const SCRIPT_PHASES = ["before", "prefix", "onSuccess", "onError", "suffix"] as const;
export type ScriptPhase = (typeof SCRIPT_PHASES)[number];

const PHASE_DOC: Record<ScriptPhase, string> = {
  before: "TypeScript run before the server namespaces, tools and call are installed (log, emit, script and result are there)",
  prefix: "TypeScript run after all the globals, before the script is imported",
  onSuccess: "TypeScript run when the script succeeded; sees result.value",
  onError: "TypeScript run when the script failed; sees result.error, which still propagates",
  suffix: "TypeScript run last on both paths, like finally",
};

const PHASE_ALIAS: Record<ScriptPhase, string> = {
  before: "before",
  prefix: "prefix",
  onSuccess: "on-success",
  onError: "on-error",
  suffix: "suffix",
};

// Declared `as const` so each setting's path and kind are types: session.get("…") is checked against
// them (SettingPath, SettingValue below), and a misspelt or mistyped key does not compile.
const DECLARED = [
  ...SCRIPT_PHASES.map((phase) => ({
    path: `script.${phase}` as const,
    kind: "source" as const,
    default: [],
    description: `${PHASE_DOC[phase]}. Repeatable; "-" (null in JSON) splices inherited lines; "@FILE" uses the file's text.`,
    aliases: [PHASE_ALIAS[phase]],
    commands: RUNS,
    remote: "options" as const,
    trust: "runs" as const,
  })),
  {
    path: "daemon.address",
    kind: "string",
    default: "",
    description:
      "Where the daemon listens and --remote connects: a unix socket path (default: one per config chain in " +
      "$XDG_RUNTIME_DIR/mcpx, else $XDG_STATE_HOME/mcpx, daemon.sock for the user's config alone; see " +
      "docs/daemon.md) or http://127.0.0.1:PORT (TCP: loopback only, needs daemon.token)",
    commands: [...REMOTES, "daemon"],
    remote: "caller",
  },
  {
    path: "daemon.token",
    kind: "string",
    default: "",
    description: "Bearer token the daemon requires on TCP (and --remote sends); prefer MCPX_DAEMON_TOKEN to a config file",
    commands: [...REMOTES, "daemon"],
    secret: true,
    remote: "caller",
  },
  {
    path: "remote",
    kind: "bool",
    default: "false",
    description:
      "Send run, exec, call, resource, prompt, ls, types, search, approvals, approve, reject and audit to the daemon at daemon.address, as " +
      "--remote does; with no daemon there one is started (daemon.autoStart), and they never fall back to running here. Its flag " +
      "is --remote itself (a switch, no value)",
    // no registry flag: --remote is the commands' own switch, older than this setting, and registry flags take a value
    commands: [],
    remote: "caller",
  },
  {
    path: "daemon.autoStart",
    kind: "bool",
    default: "true",
    description:
      "With --remote (or remote on) and no daemon at daemon.address: start one in the background, as `mcpx daemon start` " +
      "does, and send the command to it; false: fail instead (exit 2)",
    commands: REMOTES,
    remote: "caller",
  },
  {
    path: "daemon.maxBody",
    kind: "int",
    default: "4194304",
    description: "Largest request body the daemon accepts, in bytes; a larger one is refused with 413",
    commands: ["daemon"],
  },
  {
    path: "daemon.maxRuns",
    kind: "int",
    // 8: 200 runs at once took 7.3 GB; each runtime is ~35 MB idle and an agent's may grow to
    // exec.agentMaxHeap (512 MiB), so 8 bounds the worst case near 4 GB, while 8 runs waiting on
    // tools are more than one agent or a few clients keep going (docs/daemon.md)
    default: "8",
    description:
      "Most script runs at once: /v1/exec and the daemon's /mcp mcpx_exec together, and mcpx serve's own " +
      "mcpx_exec. One more is refused at once (503 with Retry-After on /v1/exec, an isError result on " +
      "mcpx_exec), not queued; 0 = no limit",
    commands: ["daemon", "serve"],
  },
  {
    path: "approvals.ttl",
    kind: "duration",
    default: "1h",
    description:
      "How long a run an `ask` hook paused (nobody could answer) waits for mcpx approve or mcpx reject and its " +
      'resume (mcpx_exec {"resume": ID}); after it the approval is expired and the run must be made again',
    commands: ["serve", "daemon"],
  },
  {
    path: "daemon.artifactTtl",
    kind: "duration",
    default: "1h",
    description:
      "How long the daemon serves an artifact its run made (GET /v1/artifacts/ID) after the run ends; then it is " +
      "forgotten (404 ARTIFACT_EXPIRED); 0 = until daemon.artifactMax forgets it",
    commands: ["daemon"],
  },
  {
    path: "daemon.artifactMax",
    kind: "int",
    default: "1024",
    description: "The most the artifacts the daemon serves may hold together, in MiB; past it the oldest are forgotten (404 ARTIFACT_EVICTED); 0 = no limit",
    commands: ["daemon"],
  },
  {
    path: "daemon.drainGrace",
    kind: "duration",
    // 30s: Kubernetes' default terminationGracePeriodSeconds, which an orchestrator's grace must exceed
    // (docs/deploy.md); a run that needs longer is cancelled, as a client disconnect cancels it
    default: "30s",
    description:
      "On SIGTERM the daemon drains: new runs and calls get 503 DRAINING, runs in flight get this long to finish, then " +
      "the ones still going are cancelled and the daemon exits 0 (a second SIGTERM, or SIGINT, ends it at once)",
    commands: ["daemon"],
  },
  {
    path: "daemon.startServers",
    kind: "bool",
    default: "false",
    description:
      "Start every configured server when the daemon starts, keep them (daemon.idleTimeout stops none), and start one again " +
      "when a readiness check (GET /v1/health/ready) finds it down or failed; off: servers start on first use",
    commands: ["daemon"],
  },
  {
    path: "daemon.idleTimeout",
    kind: "duration",
    default: "5m",
    description: "An upstream server no run has used for this long is stopped (the daemon's pool is shared by all runs)",
    commands: ["daemon"],
  },
  {
    path: "script.runtime",
    kind: "enum",
    default: "auto",
    values: RUNTIMES,
    description: "Runtime for scripts: auto (the embedded Bun), bun (the embedded Bun), deno or node from PATH",
    aliases: ["runtime"],
    commands: RUNS,
    remote: "options",
  },
  {
    path: "exec.timeout",
    kind: "duration",
    default: "0s",
    description: "End the script's whole process group after this long (exit 124); 0s = no limit",
    aliases: ["timeout"],
    commands: RUNS,
    remote: "options",
  },
  {
    path: "exec.agentTimeout",
    kind: "duration",
    default: "60s",
    description:
      "The longest an agent's run (mcpx_exec on mcpx serve and the daemon's /mcp) may take, whatever it " +
      "asks for: the stricter of it, exec.timeout and the run's own timeout applies; 0s = no limit beyond those",
    commands: ["serve", "daemon"],
  },
  {
    path: "exec.maxHeap",
    kind: "int",
    default: "0",
    description:
      "The most memory a script's heap may take, in MiB (its runtime's data limit is this plus 256 MiB, " +
      "which also bounds typed arrays and Buffers); past it the run fails naming the limit. 0 = no limit " +
      "(mcpx_exec has exec.agentMaxHeap)",
    commands: RUNS,
  },
  {
    path: "exec.agentMaxHeap",
    kind: "int",
    default: "512",
    description:
      "exec.maxHeap for an agent's run (mcpx_exec on mcpx serve and the daemon's /mcp): the stricter of the two applies; 0 = none beyond exec.maxHeap",
    commands: ["serve", "daemon"],
  },
  {
    path: "exec.workspaceQuota",
    kind: "int",
    default: "256",
    description:
      "The most a workspace may hold, in MiB: the files a script keeps with the workspace global (an agent " +
      "session's, removed with the session; any other run's, removed when it ends). A write past it fails and " +
      "writes nothing; 0 = no limit",
    commands: RUNS,
    // raised, it lets an agent's runs fill the disk: a project's file sets it only once trusted
    trust: "widens",
  },
  {
    path: "exec.artifactsMax",
    kind: "int",
    default: "1024",
    description:
      "The most one run's artifacts (artifact(name, data)) may hold together, in MiB; an artifact past it is " + "refused and not kept; 0 = no limit",
    commands: RUNS,
    // raised, it lets an agent's runs fill the disk: a project's file sets it only once trusted
    trust: "widens",
  },
  {
    path: "exec.sandbox",
    kind: "enum",
    default: "auto",
    values: ["auto", "on", "off"],
    description:
      "Run scripts in the sandbox: on = on exec.sandboxEngine, with no file, network, subprocess, environment " +
      "or FFI access beyond the run's own files and channel (and, on Deno, exec.sandboxAllow); off = with " +
      "everything mcpx can reach; auto = on for mcpx_exec (mcpx serve, the daemon's /mcp), off " +
      "for the CLI and /v1/exec. A run may ask for a stricter value, never a looser one (docs/security.md)",
    aliases: ["sandbox"],
    commands: RUNS,
    remote: "options",
    trust: "widens",
  },
  {
    path: "exec.sandboxEngine",
    kind: "enum",
    default: "quickjs",
    values: SANDBOX_ENGINES,
    description:
      "What a sandboxed run runs on: quickjs = the engine embedded in mcpx (QuickJS in WebAssembly, " +
      "in-process, nothing else installed; no file system, network, process or environment at all, " +
      "its script imports nothing but itself) or deno = Deno's permissions (Deno 2 installed; npm " +
      "imports, exec.sandboxAllow). --runtime deno with the sandbox on runs on Deno (decision 0023)",
    aliases: ["sandbox-engine"],
    commands: RUNS,
    trust: "widens",
  },
  {
    path: "exec.sandboxAllow",
    kind: "json",
    default: [],
    description:
      'What a sandboxed script may reach beyond its own files and channel: objects {"read": ' +
      '[paths], "write": [paths], "net": ["host:port"], "env": [names]}, merged; paths absolute; ' +
      "a JSON list layered by the null-splice rule. Widen deliberately (docs/security.md)",
    commands: RUNS,
    trust: "widens",
  },
  {
    path: "exec.autoInstall",
    kind: "bool",
    default: "false",
    description:
      "Let the script's runtime download and install npm packages the script imports but the " +
      "project does not have (Bun's auto-install, Deno's npm: and remote imports); off: such an " +
      "import is an error naming the package",
    commands: RUNS,
    trust: "runs",
  },
  {
    path: "config.imports",
    kind: "list",
    default: [...IMPORT_KINDS],
    description:
      `Which other tools' MCP server lists to read where they are, no copying ` +
      `(docs/decisions/0009): any of ${IMPORT_KINDS.join(", ")}; [] (or "none" in a variable or ` +
      `flag) for none. mcpx's own mcpServers win a name clash, then the earlier kind in this ` +
      `order. mcpx ls shows where each server came from`,
    commands: EVERY,
  },
  {
    path: "mcp.callTimeout",
    kind: "duration",
    default: "60s",
    description: "How long one upstream tools/call may take before it fails naming the server",
    commands: EVERY,
    remote: "run",
  },
  {
    path: "mcp.startTimeout",
    kind: "duration",
    default: "60s",
    description:
      "How long an upstream server may take to start and answer initialize (a first npx run " +
      "downloads the server) before it fails naming the server; apart from mcp.callTimeout, so a " +
      "short call timeout does not fail slow starts",
    commands: EVERY,
  },
  {
    path: "mcp.maxMessage",
    kind: "int",
    default: "67108864",
    description:
      "Largest single MCP message mcpx reads over stdio, in bytes (an upstream server's answer; " +
      "a request to mcpx serve); a larger one fails naming this setting",
    commands: EVERY,
  },
  {
    path: "mcp.maxAnswer",
    kind: "int",
    default: "1048576",
    description:
      "Largest answer mcpx serve and the daemon's /mcp send to one tools/call, in bytes, counted as " +
      "sent: mcpx_exec's output and result are cut to fit and the answer says so, an artifact that " +
      "does not fit whole is linked (resources/read), an mcpx_call result over it is an error. Keep it " +
      "well under the 10 MiB an MCP SDK client reads, past " +
      "which it closes the whole connection (docs/mcpserver.md)",
    commands: ["serve", "daemon"],
  },
  {
    path: "logging.format",
    kind: "enum",
    default: "text",
    values: ["text", "json", "logfmt", "compact", "bare"],
    description: "How logs, emits and advice are written to stderr",
    commands: EVERY,
    remote: "caller",
  },
  {
    path: "logging.level",
    kind: "enum",
    default: "info",
    values: ["debug", "info", "warn", "error", "silent"],
    description: "Lowest log level shown on stderr, and asked of servers that log (logging/setLevel); debug also shows upstream servers' stderr",
    commands: EVERY,
    remote: "caller",
  },
  {
    path: "hooks",
    kind: "json",
    default: [],
    description: "Hook objects (on, phase, one action, effect, …); a JSON list layered by the null-splice rule (docs/hooks.md)",
    commands: HOOKED,
    remote: "options",
    trust: "runs",
  },
  {
    path: "plugins",
    kind: "list",
    default: [],
    description:
      "Plugin directories (or mcpx-plugin.json paths), relative to the config file: each brings " +
      "one MCP server and hooks that are in force while its server runs",
    commands: EVERY,
    trust: "runs",
  },
  {
    path: "hooks.autonomy",
    kind: "enum",
    default: "run",
    values: LEVELS,
    description: "The caller's ceiling on every hook's effect: a hook key above it is dropped and reported",
    commands: HOOKED,
    remote: "run",
    trust: "widens",
  },
  {
    path: "autonomy.max",
    kind: "enum",
    default: "run",
    values: LEVELS,
    description: "The daemon's (here: this process's) ceiling on every hook's effect, applied after hooks.autonomy",
    commands: HOOKED,
    remote: "run",
    trust: "widens",
  },
  {
    path: "hooks.retryBudget",
    kind: "int",
    default: "2",
    description: 'How many times {"run": "retry"} from onError may repeat one operation; 0 disables retries',
    commands: HOOKED,
    remote: "run",
  },
  {
    path: "hooks.timeout",
    kind: "duration",
    default: "30s",
    description: "How long a hook may take unless it sets its own timeout; then its process group is ended and it counts as failed",
    commands: HOOKED,
    remote: "run",
  },
  {
    path: "hooks.observeGrace",
    kind: "duration",
    default: "2s",
    description:
      "How long a command that is ending waits for observe hooks still running; those left are then ended (their process groups) and named on stderr",
    commands: HOOKED,
  },
  {
    path: "hooks.mcpTimeout",
    kind: "duration",
    default: "2.5s",
    description: "How long an allowlisted server's hook tool (_PreToolUse, …) may take; a timeout is no objection",
    commands: HOOKED,
    remote: "run",
  },
  {
    path: "hooks.mcpServers",
    kind: "string",
    default: "",
    description:
      "Upstream servers whose lifecycle hook tools (_PreToolUse, …) are called at their points: " +
      'empty = none, exactly "*" = every server, else a comma list ("*,foo" is literal)',
    commands: HOOKED,
    env: "MCP_HOOK_SERVERS",
    trust: "widens",
  },
  {
    path: "model.url",
    kind: "string",
    default: "",
    description: "Base URL of an OpenAI-compatible endpoint for prompt hooks (…/v1); empty = prompt hooks are skipped with a warning",
    commands: HOOKED,
    trust: "widens",
  },
  {
    path: "model.name",
    kind: "string",
    default: "",
    description: "Model name sent to model.url for prompt hooks",
    commands: HOOKED,
  },
  {
    path: "model.apiKey",
    kind: "string",
    default: "",
    description: "Bearer token for model.url (prefer the MCPX_MODEL_API_KEY variable to a config file)",
    commands: HOOKED,
    secret: true,
  },
  {
    path: "audit.enabled",
    kind: "bool",
    default: "true",
    description:
      "Keep the audit log (docs/audit.md): a JSON line per run, per upstream tool call (the arguments' keys and types, never their " +
      "values) and per hook that ran, in $XDG_STATE_HOME/mcpx/audit/audit.jsonl (0600); mcpx audit reads it",
    commands: AUDITED,
    // off, nobody can tell afterwards what an agent's runs did: a project's file may not turn it off until trusted
    trust: "widens",
  },
  {
    path: "audit.values",
    kind: "bool",
    default: "false",
    description:
      "Write the arguments' values in the audit log too, not only their shape; a value under a key that names a secret (token, " +
      "password, secret, authorization, apiKey, …) and mcpx's own secrets are still written as [redacted]",
    commands: AUDITED,
    // on, a file on disk holds what the tools were given: a project's file sets it only once trusted
    trust: "widens",
  },
  {
    path: "audit.maxSize",
    kind: "int",
    default: "64",
    description: "The most the live audit log may hold, in MiB, before it is rotated (audit.jsonl becomes audit.1.jsonl, and so on); 0 = never rotated",
    commands: AUDITED,
    // lowered with audit.keep, it throws records away: a project's file sets it only once trusted
    trust: "widens",
  },
  {
    path: "audit.keep",
    kind: "int",
    default: "3",
    description: "How many rotated audit log files are kept (audit.1.jsonl newest); older ones are removed",
    commands: AUDITED,
    trust: "widens",
  },
] as const satisfies readonly SettingDecl[];

export const SETTINGS: readonly SettingDecl[] = DECLARED;

/** every setting's path, as a type: what session.get accepts */
export type SettingPath = (typeof DECLARED)[number]["path"];

/** the TypeScript type of each kind's resolved value (lib/settings/resolve.ts: durations are milliseconds) */
interface KindValue {
  string: string;
  int: number;
  duration: number;
  bool: boolean;
  list: string[];
  source: string[];
  json: Record<string, unknown>[];
}

/** the declaration of path P (a script phase's declaration covers all five of their paths) */
type DeclOf<P extends SettingPath, D = (typeof DECLARED)[number]> = D extends { path: infer Q } ? (P extends Q ? D : never) : never;

/** the resolved value of the setting at path P: an enum's union of values, else its kind's type */
export type SettingValue<P extends SettingPath> =
  DeclOf<P> extends { kind: "enum"; values: readonly (infer V)[] } ? V : KindValue[Exclude<DeclOf<P>["kind"], "enum">];

/** reads one resolved setting, typed by its declaration (Session.get) */
export type SettingGetter = <P extends SettingPath>(path: P) => SettingValue<P>;
