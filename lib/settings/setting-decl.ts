// The shape of one setting's declaration (lib/settings/registry.ts holds the table of them): its
// kind, its fields, and the commands whose flags a setting can belong to.

export type SettingKind = "string" | "int" | "bool" | "duration" | "enum" | "list" | "source" | "json";

export interface SettingDecl {
  /** dotted path; also the config key (nested or literally dotted) */
  path: string;
  kind: SettingKind;
  /** default as it would be written in a config file; lists default to [] */
  default: unknown;
  description: string;
  /** accepted values, for kind "enum" */
  values?: readonly string[];
  /** extra flag spellings, without the leading dashes (e.g. "before" for script.before) */
  aliases?: readonly string[];
  /** commands whose flags include this setting; all run-shaped commands by default */
  commands?: readonly CommandName[];
  /**
   * How a run on the daemon (--remote, /v1/exec, mcpx_exec) gets it (docs/daemon.md):
   * - "options": an ExecOptions field of its own carries it (script phases, runtime, timeout, script hooks)
   * - "run": ExecOptions.settings carries it, and the stricter of the run's and the daemon's value applies
   * - "caller": the caller uses it itself (where the daemon is, how to render)
   * Absent: it belongs to the process that runs the gate and the pool (the daemon's models, plugins,
   * read limit), and `--remote` refuses a flag for it rather than drop it.
   */
  remote?: "options" | "run" | "caller";
  /** a token or key: every surface shows only whether it is set, and no script's environment inherits it */
  secret?: true;
  /** the variable, where a convention other tools follow fixes it (MCP_HOOK_SERVERS); else derived from the path */
  env?: string;
  /**
   * Why a project's config file (a repository's .mcpx.json, docs/decisions/0015) may set it only once
   * the user trusts that file: it runs code ("runs") or widens what runs or what decides ("widens").
   * lib/trust/project-trust.ts withholds it from an untrusted file; absent: any file may set it.
   */
  trust?: "runs" | "widens";
}

// `auth` takes no setting's flag: none changes what a login does (its log lines follow logging.* from
// the config and the environment), and a flag that is accepted and dropped is worse than none
export type CommandName =
  | "run"
  | "exec"
  | "call"
  | "resource"
  | "prompt"
  | "ls"
  | "types"
  | "search"
  | "settings"
  | "hooks"
  | "daemon"
  | "serve"
  | "auth"
  | "config"
  | "trust"
  | "doctor"
  | "completion"
  | "approvals"
  | "approve"
  | "reject"
  | "audit";

/** the commands a setting's flags belong to when its declaration names none */
export const EVERY: readonly CommandName[] = [
  "run",
  "exec",
  "call",
  "resource",
  "prompt",
  "ls",
  "types",
  "search",
  "settings",
  "hooks",
  "daemon",
  "serve",
  "config",
  "doctor",
];

/** list-shaped kinds layer by the null-splice rule; scalars by plain precedence */
export function isListKind(kind: SettingKind): boolean {
  return kind === "list" || kind === "source" || kind === "json";
}
