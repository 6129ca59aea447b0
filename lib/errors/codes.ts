// The one table of mcpx's error codes: for each, the name its errors carry, the exit code it ends a
// run or a command with, the `error.code` it appears as in an error frame (and the envelope), and the
// line docs/exit-codes.md and docs/frames.md show. cmd/main.ts, the runner, the exec path and the
// daemon client take exit codes from here, never from an error's name; test/unit/error-codes.test.ts
// fails when a code is declared and nothing produces it, or produced and not declared. (The MCP SDK's
// ErrorCode + McpError are the model: one vocabulary every layer speaks.)

/** what one error code means on every surface */
export interface ErrorCodeDecl {
  /**
   * the `name` an error of this code carries, thrown (McpxError takes it from here) or in an error frame
   * (frameError), so the two never disagree; a failed call's answer is a ToolError whatever its code,
   * because that is the class the script's call rejects with (launcher/serialize.ts)
   */
  name: string;
  /**
   * the process's exit code when this error ends a run or a command; "script" when it is the script's
   * own (its `process.exit(N)`, or 128+n when a signal from outside killed it)
   */
  exit: number | "script";
  /**
   * the `error.code` it carries in an error frame (or a call frame's error); null when it never reaches
   * a frame because it stops a command before any run starts (a daemon that cannot be reached)
   */
  frame: string | null;
  /** one line for the docs: when it happens, and what to do about it where that is not obvious */
  doc: string;
}

export const ERROR_CODES = {
  TOOL_ERROR: {
    name: "ToolError",
    exit: 1,
    frame: "TOOL_ERROR",
    doc: "a tool answered `isError`: the script's call rejects with a ToolError (exit 1 unless the script catches it)",
  },
  UNKNOWN_SERVER: {
    name: "UpstreamError",
    exit: 1,
    frame: "UNKNOWN_SERVER",
    doc:
      'a script\'s call named a server that is not configured (`call("name", …)`); the message lists the configured ones. ' +
      "On the command line (`mcpx call NAME.tool`, `mcpx ls NAME`) it is a `USAGE` error (exit 2): nothing was started",
  },
  UNKNOWN_TOOL: {
    name: "UnknownToolError",
    exit: 1,
    frame: "UNKNOWN_TOOL",
    doc: "the script called a tool its server does not list (or a `_` lifecycle hook tool); the server was not contacted",
  },
  UPSTREAM_START: {
    name: "UpstreamError",
    exit: 1,
    frame: "UPSTREAM_START",
    doc: "an upstream server could not be started; the message names its config file",
  },
  UPSTREAM_TIMEOUT: {
    name: "UpstreamError",
    exit: 1,
    frame: "UPSTREAM_TIMEOUT",
    doc: "a tools/call did not answer within `mcp.callTimeout`; the server was stopped and the next call restarts it",
  },
  UPSTREAM_CLOSED: {
    name: "UpstreamError",
    exit: 1,
    frame: "UPSTREAM_CLOSED",
    doc: "the server closed the connection during a tools/call",
  },
  UPSTREAM_TOO_LARGE: {
    name: "UpstreamError",
    exit: 1,
    frame: "UPSTREAM_TOO_LARGE",
    doc: "an answer exceeded `mcp.maxMessage`",
  },
  AUTH_REQUIRED: {
    name: "AuthRequiredError",
    exit: 1,
    frame: "AUTH_REQUIRED",
    doc:
      "an HTTP server needs an OAuth login mcpx does not hold (none yet, logged out, or a " +
      "refresh it refused): run `mcpx auth NAME`; scripts and the daemon never open a browser",
  },
  AUTH_FAILED: {
    name: "AuthError",
    exit: 1,
    frame: null,
    doc: "`mcpx auth NAME` could not finish the login (no OAuth on that server, a refusal, no redirect within 5 minutes); the message says which",
  },
  UPSTREAM_ERROR: {
    name: "UpstreamError",
    exit: 1,
    frame: "UPSTREAM_ERROR",
    doc: "any other failure of a tools/call (a JSON-RPC error from the server)",
  },
  CALL_REFUSED: {
    name: "ToolError",
    exit: 1,
    frame: "REFUSED",
    doc: "a `call` hook refused a tool call: the script's call rejects with a ToolError (exit 1 unless caught)",
  },
  PENDING_APPROVAL: {
    name: "ToolError",
    exit: 1,
    frame: "PENDING_APPROVAL",
    doc:
      "an `ask` hook fired and nobody could answer: the call was not sent and the run paused " +
      '(mcpx_exec answers `pending`); `mcpx approve ID` or `mcpx reject ID`, then mcpx_exec {"resume": ID}',
  },
  REPLAY_DIVERGED: {
    name: "ToolError",
    exit: 1,
    frame: "REPLAY_DIVERGED",
    doc: "a resumed run made a call its paused run did not make at that place (another source or inputs): nothing was sent",
  },
  REPLAY_UNANSWERED: {
    name: "ToolError",
    exit: 1,
    frame: "REPLAY_UNANSWERED",
    doc:
      "a resumed run made a call its paused run had sent but ended before the answer came: it is not sent again " +
      "(the server may have acted on it); await every call before a run ends",
  },
  ARTIFACT: {
    name: "ArtifactError",
    exit: 1,
    frame: "ARTIFACT",
    doc: "an `artifact(name, data)` was not kept: a name that is not one file name, or past `exec.artifactsMax`",
  },
  WORKSPACE: {
    name: "WorkspaceError",
    exit: 1,
    frame: "WORKSPACE",
    doc: "a `workspace` operation failed: a name that is not one file name, a file that is not there, a session that ended",
  },
  WORKSPACE_QUOTA: {
    name: "WorkspaceError",
    exit: 1,
    frame: "WORKSPACE_QUOTA",
    doc: "a `workspace.write` would take the workspace over `exec.workspaceQuota`: nothing was written",
  },
  SERVER_REFUSED: {
    name: "UpstreamError",
    exit: 1,
    frame: "REFUSED",
    doc: "a `server.start` hook refused to start a server: the calls that needed it fail",
  },
  REFUSED: {
    name: "RefusedError",
    exit: 77,
    frame: "REFUSED",
    doc: 'a `script.before` hook refused the run (refuse, an unanswered ask, or a failing `failure: "closed"` hook): the script never started',
  },
  RESULT_REFUSED: {
    name: "RefusedError",
    exit: 1,
    frame: "REFUSED",
    doc: "a `script.onSuccess` hook refused the script's result: the run fails although the script succeeded",
  },
  TIMEOUT: {
    name: "TimeoutError",
    exit: 124,
    frame: "TIMEOUT",
    doc: "`--timeout` / `exec.timeout` ran out: the script's whole process group was ended; everything it wrote before is still reported",
  },
  HEAP_LIMIT: {
    name: "HeapLimitError",
    exit: "script",
    frame: "EXIT",
    doc: "the script ran out of memory at the door's heap limit and was ended; the message names the setting that bounds it",
  },
  INTERRUPTED: {
    name: "InterruptedError",
    exit: 130,
    frame: "INTERRUPTED",
    doc: "interrupted (SIGINT/SIGTERM to mcpx, or the caller went away): the script's process group was ended",
  },
  EXIT: {
    name: "ExitError",
    exit: "script",
    frame: "EXIT",
    doc: "the script's process exited without a result: `process.exit(N)` (or `Deno.exit(N)`) passes N through; a signal n from outside mcpx gives 128+n",
  },
  USAGE: {
    name: "UsageError",
    exit: 2,
    frame: "USAGE",
    doc: "a wrong request, reported before anything runs: an unknown flag, command or argument, a missing script, a phase that does not parse",
  },
  CONFIG: {
    name: "ConfigError",
    exit: 2,
    frame: "USAGE",
    doc: "a config file that does not parse, or a key in it that is wrong; the message names the file, line and key",
  },
  SETTINGS: {
    name: "SettingsError",
    exit: 2,
    frame: "USAGE",
    doc: "a setting whose value does not parse or cannot work (a TCP `daemon.address` without `daemon.token`), or two spellings of one setting that disagree",
  },
  HOOK_CONFIG: {
    name: "HookConfigError",
    exit: 2,
    frame: "USAGE",
    doc: "a hook object that is not valid (docs/hooks.md); the message names its origin and key",
  },
  SYSTEM: {
    name: "SystemError",
    exit: 2,
    frame: null,
    doc:
      "a directory mcpx keeps its files in cannot take them (full, read-only, forbidden, not a " +
      "directory); the message names it and the variable that moves it",
  },
  RUNTIME: {
    name: "RuntimeError",
    exit: 2,
    frame: "USAGE",
    doc: "the script's runtime (`script.runtime`: deno or node) is not installed where mcpx looks for it",
  },
  DAEMON_LOST: {
    name: "DaemonError",
    exit: 1,
    frame: "DAEMON_LOST",
    doc: "`--remote`: the daemon's stream broke before the run ended",
  },
  INTERNAL: {
    name: "InternalError",
    exit: 1,
    frame: "INTERNAL",
    doc: "a bug in mcpx: the message carries its stack",
  },
  E_NO_DAEMON: {
    name: "DaemonClientError",
    exit: 2,
    frame: null,
    doc: "`--remote` with `daemon.autoStart` off: no daemon listens at `daemon.address`; start one with `mcpx daemon start`",
  },
  DAEMON_NOT_RUNNING: {
    name: "DaemonNotRunning",
    exit: 3,
    frame: null,
    doc: "`mcpx daemon status`: no daemon answers at `daemon.address` (3, as for an init script's status)",
  },
  DAEMON_NOT_READY: {
    name: "DaemonNotReady",
    exit: 3,
    frame: null,
    doc:
      "`mcpx daemon status --ready`: no daemon answers, or it answers but is not ready (a server not up, or draining): " +
      "the readiness probe's failure (docs/deploy.md)",
  },
  E_DAEMON_UNREACHABLE: {
    name: "DaemonClientError",
    exit: 2,
    frame: null,
    doc: "`--remote`: the daemon's address could not be reached",
  },
  E_DAEMON_AUTH: {
    name: "DaemonClientError",
    exit: 2,
    frame: null,
    doc: "`--remote`: the daemon refused the token (`daemon.token`)",
  },
  E_DAEMON_REFUSED: {
    name: "DaemonClientError",
    exit: 2,
    frame: null,
    doc: "`--remote`: the daemon refused the run (a request it cannot take, or larger than its `daemon.maxBody`)",
  },
  E_DAEMON_VERSION: {
    name: "DaemonClientError",
    exit: 2,
    frame: null,
    doc: "`--remote`: the daemon does not serve `/v1/exec` (another version of mcpx)",
  },
  DAEMON_FAILED: {
    name: "DaemonClientError",
    exit: 1,
    frame: null,
    doc: "`--remote`: the daemon answered with an error of its own",
  },
  E_DAEMON: {
    name: "DaemonError",
    exit: 2,
    frame: null,
    doc: "`mcpx daemon` (or `daemon start`) cannot listen: its address is in use, is not a socket, or cannot be bound; " + "or the daemon it started exited 2",
  },
} as const satisfies Record<string, ErrorCodeDecl>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** the codes an error frame's `error.code` can carry when mcpx produced it (a script may throw others) */
export type FrameCode = NonNullable<(typeof ERROR_CODES)[ErrorCode]["frame"]>;

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** the exit code an error with this code ends a command or a run with; `scriptCode` when it is the script's own */
export function exitCodeOf(code: ErrorCode, scriptCode = 1): number {
  const exit = ERROR_CODES[code].exit;
  return exit === "script" ? scriptCode : exit;
}

/** the name an error of this code carries, thrown or in a frame */
export function errorNameOf(code: ErrorCode): string {
  return ERROR_CODES[code].name;
}

/** the `error.code` a frame carries for this code */
export function frameCodeOf(code: ErrorCode): FrameCode {
  const frame = ERROR_CODES[code].frame;
  if (frame === null) throw new Error(`internal: error code ${code} never reaches a frame`);
  return frame;
}

/** true for the names of the table (a code a script threw itself is not one of them) */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_CODES, code);
}
