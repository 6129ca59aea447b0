// The upstream pool: one SDK client per configured server, started on first use (a script that never
// touches a server never starts it), dropped when its transport closes or a call hangs, so the next
// call reconnects. Server stderr goes to the log at debug level, and its last lines into the error when it fails to start.

import "./zod-interpreted.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { BrokenServer, ServerConfig } from "../config/servers.ts";
import { isHookToolName } from "./tool-names.ts";
import { filterTools } from "./tool-filter.ts";
import type { ErrorCode } from "../errors/codes.ts";
import { McpxError } from "../errors/mcpx-error.ts";
import type { CallResult, Tool } from "./tool.ts";
import { AuthRequiredError, storedAuthProvider } from "./oauth/provider.ts";
import { VERSION } from "../version.ts";
import { isPlainObject } from "../util/json-type.ts";
import { serverEnv } from "./server-spawn.ts";
import { StdioTransport } from "./stdio-transport.ts";
import { leanRequests, type LeanRequest } from "./lean-request.ts";
import { suggest } from "../util/did-you-mean.ts";
import { trace } from "../util/trace.ts";
import { SEND_TOOLS_CALL } from "./upstream-call.ts";

export type { CallResult, Tool };

export interface PoolOptions {
  /** where server stderr and lifecycle notes go */
  log(level: "debug" | "info" | "warn" | "error", message: string): void;
  callTimeoutMs: number;
  /** mcp.startTimeout: spawn (or connect) to initialize answered */
  startTimeoutMs: number;
  /** mcp.maxMessage: the stdio read limit for one message from a server */
  maxMessageBytes: number;
  /** where OAuth logins are stored (lib/mcp/oauth/store.ts authDir); undefined: HTTP servers get no OAuth */
  authDir?: string;
  /** the environment a stdio server inherits before its own `env` (see docs/decisions/0002) */
  baseEnv: Record<string, string | undefined>;
  /**
   * the server.start point: called with "before" (throw to refuse the start), then "onSuccess"
   * (throw to refuse the started server) with `tools`, which lists the server's tools and gives
   * their count when a hook's payload needs it, or "onError" with the error
   */
  startGate?(server: ServerConfig, phase: "before" | "onSuccess" | "onError", info: { tools?: () => Promise<number>; error?: Error }): Promise<void>;
  /** lifecycle events for the bus: server.started, server.stopped, tools.changed */
  onEvent?(kind: "server.started" | "server.stopped" | "tools.changed", data: Record<string, unknown>): void;
  /** a tool's notifications/progress during a call (a status line shows it); undefined once the call ends */
  onProgress?(server: string, tool: string, progress: { progress: number; total?: number; message?: string } | undefined): void;
  /** told each time a server's tool list is read (the catalogue cache keeps it) */
  onTools?(server: string, tools: Tool[]): void;
  /** configured entries that cannot be used: a script sees their namespaces, and using one is the error */
  broken?: Readonly<Record<string, BrokenServer>>;
}

/** how long a server that failed to start may take to have its stderr read to the end, which its error quotes */
const STDERR_READ_MS = 500;

/** a server that failed to start or to answer; its code (UPSTREAM_*, SERVER_REFUSED) is a row of lib/errors/codes.ts */
export class UpstreamError extends McpxError {
  override name = "UpstreamError";
  constructor(
    message: string,
    readonly server: string,
    code: ErrorCode,
  ) {
    super(message, code);
  }
}

interface Connection {
  client: Client;
  transport: Transport;
  tools?: Promise<Tool[]>;
  /** what `tools` resolved to, once it has (a call then finds its tool without waiting a turn); cleared with it */
  listed?: Tool[];
  /** each called tool's output-schema check, compiled at its first call (null: it has none); cleared with tools */
  outputChecks: Map<string, OutputCheck | null>;
  /** tools/call past the SDK's Protocol (lean-request.ts); undefined where it cannot be installed */
  lean?: LeanRequest;
}

/** the connection's tool list, listed once until tools/list_changed; `listed` holds it once it has arrived */
function listingOf(conn: Connection, list: () => Promise<Tool[]>): Promise<Tool[]> {
  if (!conn.tools) {
    const listing = list();
    conn.tools = listing;
    // a failed list is its callers' to report; this only keeps a list that arrived (and is still current)
    listing.then(
      (tools) => {
        if (conn.tools === listing) conn.listed = tools;
      },
      () => {},
    );
  }
  return conn.tools;
}

/** a compiled outputSchema (the SDK's Ajv provider, as its own callTool uses) */
type OutputCheck = (value: unknown) => { valid: boolean; errorMessage?: string };

type AjvProvider = typeof import("@modelcontextprotocol/sdk/validation/ajv");
let outputAjv: InstanceType<AjvProvider["AjvJsonSchemaValidator"]> | undefined;

/**
 * The SDK's Ajv provider, one for the process and built when a schema is first compiled. Handed to
 * every Client too: a Client builds its own by default (an Ajv with its formats, ~5 ms of a one-shot
 * call's CPU while its server starts) and never uses it here, since mcpx checks outputs itself.
 */
function outputValidator(provider: AjvProvider): jsonSchemaValidator {
  return {
    getValidator: (schema) => {
      outputAjv ??= new provider.AjvJsonSchemaValidator();
      return outputAjv.getValidator(schema);
    },
  };
}

/**
 * The result schema mcpx hands the SDK for what it only relays (tools/call, tools/list): it accepts
 * the message as it came. The SDK's zod schemas checked every result field by field (~95 µs per call,
 * 300–480 ms for a 500-tool list); mcpx reads a result through resultText/asCallResult, which accept
 * any shape, and checks what it relies on itself (docs/decisions/0011). A plain { safeParse } object
 * is the SDK's zod-v3 path (lib zod-compat: no `_zod`).
 */
const PASS_THROUGH = { safeParse: (data: unknown) => ({ success: true as const, data }) };

/** the SDK's own McpError codes (ErrorCode in @modelcontextprotocol/sdk/types.js) for the checks it made in callTool */
const SDK_INVALID_REQUEST = -32600;
const SDK_INVALID_PARAMS = -32602;

/** the transports that found a message over mcp.maxMessage: the SDK then closes them, and the close is what callers see */
const overLimit = new WeakSet<Transport>();
/** the transports whose connection closed (the server exited, its pipe broke): a failed call on one is UPSTREAM_CLOSED */
const closed = new WeakSet<Transport>();
/** the last lines a stdio server wrote on stderr, shown when it fails to start (they say why) */
const stderrTail = new WeakMap<Transport, () => string[]>();
/** how many of them: enough for a stack or a usage message, not a log (change freely) */
const STDERR_TAIL_LINES = 12;

/** the SDK's own error codes (ErrorCode in @modelcontextprotocol/sdk/types.js), for errors the client raises itself */
const SDK_REQUEST_TIMEOUT = -32001;

/**
 * Why a tools/call failed, from what the SDK says, never from the text of a message (a tool's own
 * error that says "timed out" must not get a healthy server stopped):
 * - "closed": the connection closed under the call (seen by our onclose), or the transport itself
 *   failed (a write to a dead process: not an McpError, which is what answers from servers are)
 * - "timeout": the SDK's own request timeout, which it raises with { timeout } in its data
 * - "server": the server answered with a JSON-RPC error; it is alive and stays
 */
export function callFailure(err: unknown, transportClosed: boolean): "closed" | "timeout" | "server" {
  if (transportClosed) return "closed";
  const e = err as { name?: string; code?: unknown; data?: { timeout?: unknown } };
  const fromProtocol = e?.name === "McpError" && typeof e.code === "number";
  if (!fromProtocol) return "closed";
  if (e.code === SDK_REQUEST_TIMEOUT && typeof e.data?.timeout === "number") return "timeout";
  return "server";
}

export class Pool {
  private readonly conns = new Map<string, Promise<Connection>>();
  /** each open connection with the promise it came from: current only while conns still holds that promise */
  private readonly opened = new Map<string, { p: Promise<Connection>; conn: Connection }>();
  /** when each server was last used (a call started or ended, its tools were read), and calls in flight */
  private readonly used = new Map<string, number>();
  private readonly busy = new Map<string, number>();
  /** servers being stopped (a dropped server is no longer in conns): close() waits for them too */
  private readonly stopping = new Set<Promise<void>>();

  constructor(
    readonly servers: Readonly<Record<string, ServerConfig>>,
    private readonly opts: PoolOptions,
  ) {}

  /** the servers that can be started (broken entries are not among them: brokenNames) */
  names(): string[] {
    return Object.keys(this.servers);
  }

  /** configured entries that cannot be used, in config order */
  brokenNames(): string[] {
    return Object.keys(this.opts.broken ?? {});
  }

  /** where an entry came from (its file, and the tool whose file it is when imported), usable or broken */
  from(server: string): { origin: string; imported?: string } | undefined {
    const s = this.servers[server] ?? this.opts.broken?.[server];
    return s && { origin: s.origin, ...(s.imported ? { imported: s.imported } : {}) };
  }

  /** a broken entry's own error message (its ConfigError), as the config warning gave it */
  brokenReason(server: string): string | undefined {
    return this.opts.broken?.[server]?.error.message;
  }

  /** whether an entry is withheld because its file is not trusted (not started, not broken) */
  untrusted(server: string): boolean {
    return this.opts.broken?.[server]?.untrusted === true;
  }

  /**
   * Why a broken entry cannot be used, as the error its use raises; undefined for any other name. An
   * entry of an untrusted file raises its own ConfigError (exit 2), which says how to trust the file.
   */
  brokenError(server: string): McpxError | undefined {
    const b = this.opts.broken?.[server];
    if (!b || this.servers[server]) return undefined;
    if (b.untrusted) return b.error;
    return new UpstreamError(
      `server "${server}" cannot be used: its entry${b.imported ? ` (from ${b.imported})` : ""} is broken: ${b.error.message}`,
      server,
      "UPSTREAM_START",
    );
  }

  /** every tool the server lists, lifecycle hook tools included (callers partition them) */
  async tools(server: string): Promise<Tool[]> {
    // in use while it starts and lists: a slow start (npx) must not look idle to the daemon's reaper
    return this.inUse(server, async () => {
      const conn = await this.connect(server);
      return listingOf(conn, () => this.listAll(server, conn.client));
    });
  }

  /**
   * The server's tool list when it is open and listed already, without waiting a turn (a script's
   * calls, after the first, find their tool here); undefined otherwise, and then tools() is the way.
   */
  listedTools(server: string): Tool[] | undefined {
    return this.openNow(server)?.listed;
  }

  /** starts the server unless it runs, without listing its tools (mcpx call from the catalogue cache: lib/exec/cached-call.ts) */
  async start(server: string): Promise<void> {
    await this.inUse(server, () => this.connect(server));
  }

  /** the tools the server listed that its tool filter left out (lib/mcp/tool-filter.ts), by name */
  private readonly leftOut = new Map<string, string[]>();

  /** the names the server lists that its tool filter left out, as of its last tools/list */
  filteredOut(server: string): readonly string[] {
    return this.leftOut.get(server) ?? [];
  }

  /** the tools a script or a user may see: lifecycle hook tools (`_` names) left out */
  async visibleTools(server: string): Promise<Tool[]> {
    return (await this.tools(server)).filter((t) => !isHookToolName(t.name));
  }

  /**
   * The one way a tools/call goes upstream, reachable only through the SEND_TOOLS_CALL capability that
   * only the gate's call point holds (lib/mcp/upstream-call.ts): nothing else can send one.
   * @param keepOnTimeout hook tools: a single timeout must not restart the server (design §5)
   */
  [SEND_TOOLS_CALL](
    server: string,
    tool: string,
    args: Record<string, unknown>,
    timeoutMs = this.opts.callTimeoutMs,
    keepOnTimeout = false,
  ): Promise<CallResult> {
    const calling =
      this.callNow(server, tool, args, timeoutMs, keepOnTimeout) ?? this.inUse(server, () => this.callOn(server, tool, args, timeoutMs, keepOnTimeout));
    return this.opts.onProgress ? calling.finally(() => this.opts.onProgress!(server, tool, undefined)) : calling;
  }

  /**
   * A lifecycle hook tool's call (lib/hooks/mcp-hook-calls.ts): the gate's own machinery, so it does
   * not pass the call point it serves, and it refuses any tool whose name does not start with `_`,
   * so it cannot be used to call an ordinary tool past the gate. A single timeout keeps the server (design §5).
   */
  callHookTool(server: string, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallResult> {
    if (!isHookToolName(tool))
      return Promise.reject(
        new UpstreamError(
          `Pool.callHookTool calls only lifecycle hook tools (names starting with "_"), not "${server}.${tool}": ordinary tools are called through the gate`,
          server,
          "UPSTREAM_ERROR",
        ),
      );
    return this[SEND_TOOLS_CALL](server, tool, args, timeoutMs, true);
  }

  /**
   * callOn for a call that needs nothing awaited before its request: an open connection with the lean
   * request path and a tool called before that has no output schema. The request is written in this
   * turn and its answer takes one promise reaction, where inUse and callOn took one per async layer
   * (docs/decisions/0011); the server is busy, and then used, exactly as inUse counts it. Undefined
   * sends the call the usual way.
   */
  private callNow(server: string, tool: string, args: Record<string, unknown>, timeoutMs: number, keepOnTimeout: boolean): Promise<CallResult> | undefined {
    const conn = this.openNow(server);
    if (!conn?.lean || conn.outputChecks.get(tool) !== null) return undefined;
    const idle = this.busyWith(server);
    const onprogress = this.progressOf(server, tool);
    return conn.lean("tools/call", { name: tool, arguments: args }, timeoutMs, onprogress).then(
      (result) => {
        if (!isPlainObject(result)) return this.callFailed(conn, server, tool, notAResult(tool, result), timeoutMs, keepOnTimeout).finally(idle);
        idle();
        return result as CallResult;
      },
      (err) => this.callFailed(conn, server, tool, err, timeoutMs, keepOnTimeout).finally(idle),
    );
  }

  /** counts the server as busy while `work` runs (lastUsed is then "now"), and as used when it ends */
  private async inUse<T>(server: string, work: () => Promise<T>): Promise<T> {
    const idle = this.busyWith(server);
    try {
      return await work();
    } finally {
      idle();
    }
  }

  /** a call's notifications/progress, for opts.onProgress (a status line); undefined when nobody listens */
  private progressOf(server: string, tool: string): ((p: { progress: number; total?: number; message?: string }) => void) | undefined {
    const onProgress = this.opts.onProgress;
    return onProgress && ((p) => onProgress(server, tool, p));
  }

  /** counts the server as busy (and used now) until the function it gives back is called */
  private busyWith(server: string): () => void {
    this.busy.set(server, (this.busy.get(server) ?? 0) + 1);
    this.used.set(server, Date.now());
    return () => {
      this.busy.set(server, (this.busy.get(server) ?? 1) - 1);
      this.used.set(server, Date.now());
    };
  }

  private async callOn(server: string, tool: string, args: Record<string, unknown>, timeoutMs: number, keepOnTimeout: boolean): Promise<CallResult> {
    // an open connection and a tool called before are used as they are: no promise turn to wait for either
    const conn = this.openNow(server) ?? (await this.connect(server));
    try {
      // the SDK's callTool minus its zod pass over every result; its two checks are kept (checkOutput)
      const known = conn.outputChecks.get(tool);
      const check = known !== undefined ? known : await this.outputCheck(conn, tool);
      const params = { name: tool, arguments: args };
      const onprogress = this.progressOf(server, tool);
      const result = conn.lean
        ? await conn.lean("tools/call", params, timeoutMs, onprogress)
        : ((await conn.client.request({ method: "tools/call", params }, PASS_THROUGH as never, {
            timeout: timeoutMs,
            ...(onprogress ? { onprogress } : {}),
          })) as unknown);
      if (!isPlainObject(result)) throw notAResult(tool, result);
      if (check) await checkOutput(tool, result as CallResult, check);
      return result as CallResult;
    } catch (err) {
      return this.callFailed(conn, server, tool, err, timeoutMs, keepOnTimeout);
    }
  }

  /** a failed tools/call, said as the UpstreamError its cause calls for; a server that hung or closed is dropped */
  private async callFailed(conn: Connection, server: string, tool: string, cause: unknown, timeoutMs: number, keepOnTimeout: boolean): Promise<never> {
    const err = cause instanceof NotAResult ? await sdkError(SDK_INVALID_PARAMS, cause.message) : cause;
    const msg = String((err as Error)?.message ?? err);
    if (overLimit.has(conn.transport)) {
      void this.drop(server, "message over mcp.maxMessage");
      throw new UpstreamError(
        `server "${server}": the answer to tools/call "${tool}" exceeded mcp.maxMessage ` +
          `(${this.opts.maxMessageBytes} bytes); raise mcp.maxMessage (MCPX_MCP_MAX_MESSAGE, ` +
          `--mcp-max-message) to read it. The server was stopped and the next call restarts it`,
        server,
        "UPSTREAM_TOO_LARGE",
      );
    }
    // a refresh the server refused in the middle of a session: the login is gone, not the server
    if (err instanceof AuthRequiredError) throw new UpstreamError(err.message, server, "AUTH_REQUIRED");
    switch (callFailure(err, closed.has(conn.transport))) {
      case "timeout":
        // a hung server would hang the next call too: drop it so the next call starts it afresh
        if (!keepOnTimeout) void this.drop(server, "call timeout");
        throw new UpstreamError(
          `server "${server}" did not answer tools/call "${tool}" ` +
            `within ${timeoutMs}ms${keepOnTimeout ? "" : " (mcp.callTimeout); it was stopped and the next call restarts it"}`,
          server,
          "UPSTREAM_TIMEOUT",
        );
      case "closed":
        void this.drop(server, "connection closed");
        throw new UpstreamError(
          `server "${server}" closed the connection during tools/call "${tool}" (${msg}); the next call restarts it`,
          server,
          "UPSTREAM_CLOSED",
        );
      case "server":
        throw new UpstreamError(`server "${server}" failed tools/call "${tool}": ${msg}`, server, "UPSTREAM_ERROR");
    }
  }

  /**
   * The tool's outputSchema check, compiled when it is first called: the SDK compiled every tool's
   * schema as soon as the list arrived (most of a 500-tool list's cost), mcpx only those a run calls.
   * A tool the server marks taskSupport "required" is refused as the SDK's callTool refused it.
   */
  private async outputCheck(conn: Connection, tool: string): Promise<OutputCheck | null> {
    const known = conn.outputChecks.get(tool);
    if (known !== undefined) return known;
    const listing = conn.tools;
    const t = listing ? (await listing).find((x) => x.name === tool) : undefined;
    if ((t as { execution?: { taskSupport?: unknown } } | undefined)?.execution?.taskSupport === "required") {
      throw await sdkError(SDK_INVALID_REQUEST, `Tool "${tool}" requires task-based execution, which mcpx does not offer`);
    }
    let check: OutputCheck | null = null;
    if (t?.outputSchema) {
      check = outputValidator(await import("@modelcontextprotocol/sdk/validation/ajv")).getValidator(t.outputSchema as never) as OutputCheck;
    }
    // only a catalogue that is still current may be cached (a list_changed clears both)
    if (listing && conn.tools === listing) conn.outputChecks.set(tool, check);
    return check;
  }

  /** ms timestamp of the server's last use (now, while a call is in flight); undefined if never used (the daemon's idle reaper reads it) */
  lastUsed(server: string): number | undefined {
    return (this.busy.get(server) ?? 0) > 0 ? Date.now() : this.used.get(server);
  }

  /** true once a server has been started in this pool */
  started(server: string): boolean {
    return this.conns.has(server);
  }

  /** stops every server and waits until each process it started is gone */
  async close(): Promise<void> {
    await Promise.all([...this.conns.keys()].map((s) => this.drop(s, "pool closed")));
    while (this.stopping.size > 0) await Promise.all([...this.stopping]);
  }

  /** stops a server; the next call starts it again. `reason` goes into server.stopped ("idle" from the daemon's reaper) */
  async restart(server: string, reason = "restarted"): Promise<void> {
    await this.drop(server, reason);
  }

  private async drop(server: string, reason: string): Promise<void> {
    const p = this.conns.get(server);
    this.conns.delete(server);
    if (!p) return;
    let conn: Connection;
    try {
      conn = await p;
    } catch {
      return; // it never started: there is nothing to stop
    }
    // out of the pool from here on: say so before the close completes, so that a crash is published
    // before the failed call's error reaches the script
    this.opts.onEvent?.("server.stopped", { server, reason });
    await this.stop(conn.client);
  }

  /**
   * Closes a client; a stdio server's transport ends the server process and whatever it started
   * (`npx` → `node`) on the one schedule of lib/process/end.ts endServer. Stopped means the client
   * is closed: its transport waits until Bun has reaped the server and every process of the tree is
   * gone. Not sooner: /proc shows a server as a zombie while its other threads still tear down, and
   * a process that exits then leaves that zombie to an init that may never reap it (a container's).
   */
  private stop(client: Client): Promise<void> {
    const done = client.close().catch(() => {});
    this.stopping.add(done);
    void done.finally(() => this.stopping.delete(done));
    return done;
  }

  private connect(server: string): Promise<Connection> {
    let p = this.conns.get(server);
    if (!p) {
      const opening = this.open(server);
      p = opening;
      this.conns.set(server, opening);
      opening.then(
        (conn) => this.opened.set(server, { p: opening, conn }),
        () => this.conns.get(server) === opening && this.conns.delete(server),
      );
    }
    return p;
  }

  /** the server's connection if it is open and still the pool's, without waiting a turn for it */
  private openNow(server: string): Connection | undefined {
    const o = this.opened.get(server);
    return o && this.conns.get(server) === o.p ? o.conn : undefined;
  }

  /** @param legacy the retry over legacy SSE after a Streamable HTTP 404/405: its config, and what the first attempt was told */
  private async open(server: string, legacy?: { cfg: ServerConfig; first: string }): Promise<Connection> {
    const cfg = legacy?.cfg ?? this.servers[server];
    const broken = this.brokenError(server);
    if (broken) throw broken;
    if (!cfg)
      throw new UpstreamError(
        `unknown server "${server}"${suggest(server, this.names())}: configured servers ` +
          `are ${this.names().join(", ") || "none"} (mcpServers in your config; see mcpx ls)`,
        server,
        "UNKNOWN_SERVER",
      );
    // the retry is the same start: its before hooks have run
    if (!legacy) await this.opts.startGate?.(cfg, "before", {});
    const transport = await this.transport(cfg);
    let client: Client | undefined;
    transport.onclose = () => {
      closed.add(transport);
      // keep only a live connection in the pool
      // (a connection that failed to open rejects; that failure is reported by whoever awaited it)
      void this.conns.get(server)?.then(
        (c) => {
          if (c.client !== client) return;
          this.conns.delete(server);
          this.opts.onEvent?.("server.stopped", { server, reason: "connection closed" });
        },
        () => {},
      );
    };
    // a stdio server is spawned before the SDK is loaded, which then loads while the server starts
    // (the server's start is most of a one-shot call); a failure to spawn is connect's, below
    const spawning = transport instanceof StdioTransport ? transport.start() : undefined;
    spawning?.catch(() => {});
    trace(`${server}: spawned`);
    const [{ Client }, ajv] = await Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), import("@modelcontextprotocol/sdk/validation/ajv")]);
    trace(`${server}: sdk loaded`);
    client = new Client({ name: "mcpx", version: VERSION }, { capabilities: {}, jsonSchemaValidator: outputValidator(ajv) });
    const connecting = client.connect(transport, { timeout: this.opts.startTimeoutMs });
    try {
      await connecting;
      trace(`${server}: initialized`);
    } catch (err) {
      await this.stop(client);
      const status = legacySseStatus(cfg, err);
      // the MCP SDK's advice for a client that meets an older server: a Streamable HTTP POST answered
      // 404 or 405 means the URL may speak the legacy HTTP+SSE transport (MCP 2024-11-05); try that once
      if (status !== undefined) {
        trace(`${server}: Streamable HTTP answered ${status}; trying legacy SSE`);
        return this.open(server, { cfg: { ...cfg, transport: "sse" } as ServerConfig, first: `HTTP ${status} to a Streamable HTTP POST` });
      }
      const where = cfg.kind === "stdio" ? `${cfg.command} ${cfg.args.join(" ")}`.trim() : cfg.url;
      const why = legacy
        ? `it answered ${legacy.first}, and the legacy SSE transport failed too (${shortHttpError(err)}): check the URL ` +
          `(Streamable HTTP endpoints are often …/mcp, legacy SSE ones …/sse)`
        : callFailure(err, false) === "timeout"
          ? `it did not answer initialize within ${this.opts.startTimeoutMs}ms (mcp.startTimeout)`
          : String((err as Error)?.message ?? err);
      if (transport instanceof StdioTransport) await transport.readToEnd(STDERR_READ_MS);
      const tail = stderrTail.get(transport)?.() ?? [];
      const said = tail.length ? `. Its stderr ended with:\n  ${tail.join("\n  ")}\n` : ". ";
      const error =
        err instanceof AuthRequiredError
          ? new UpstreamError(err.message, server, "AUTH_REQUIRED")
          : new UpstreamError(
              `server "${server}" could not be started (${where}): ${why}${said}Its config is ` +
                `in ${cfg.origin}; run with --logging-level debug to see all its stderr`,
              server,
              "UPSTREAM_START",
            );
      await this.opts.startGate?.(cfg, "onError", { error });
      throw error;
    }
    const { McpError, ToolListChangedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      const c = await this.conns.get(server);
      if (c) {
        c.tools = undefined;
        c.listed = undefined;
        c.outputChecks.clear();
      }
      this.opts.onEvent?.("tools.changed", { server });
    });
    // only over mcpx's own stdio transport, whose messages are already checked for what routing them reads
    const lean = transport instanceof StdioTransport ? leanRequests(client, transport, McpError) : undefined;
    const conn: Connection = { client, transport, outputChecks: new Map(), lean };
    if (this.opts.startGate) {
      try {
        // listed only if the gate asks: a call that already knows its tool (mcpx call from the
        // catalogue cache) then never waits for a tools/list
        // the tools a script can call: `_` lifecycle hook tools are never counted (as mcpx ls and mcpx_namespaces count)
        const tools = async () => (await listingOf(conn, () => this.listAll(server, client))).filter((t) => !isHookToolName(t.name)).length;
        await this.opts.startGate(cfg, "onSuccess", { tools });
      } catch (err) {
        await this.stop(client);
        throw err;
      }
    }
    this.opts.onEvent?.("server.started", { server });
    return conn;
  }

  private async transport(cfg: ServerConfig): Promise<Transport> {
    if (cfg.kind === "http" && cfg.transport === "sse") {
      // the legacy HTTP+SSE transport (MCP 2024-11-05): a GET stream for answers, POSTs for requests;
      // headers go on both (eventSourceInit alone would leave the POSTs without them)
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(new URL(cfg.url), {
        requestInit: { headers: cfg.headers },
        eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...cfg.headers, ...(init?.headers as Record<string, string>) } }) },
      });
    }
    if (cfg.kind === "http") {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      return new StreamableHTTPClientTransport(new URL(cfg.url), {
        requestInit: { headers: cfg.headers },
        authProvider: storedAuthProvider(cfg, this.opts.authDir),
      });
    }
    const env = serverEnv(this.opts.baseEnv, cfg.env);
    const t = new StdioTransport({ command: cfg.command, args: cfg.args, env, cwd: cfg.cwd, maxBufferSize: this.opts.maxMessageBytes });
    // The transport reports a message over its read limit only through onerror, then closes, and the
    // pending call fails as "Connection closed"; remember why, so the caller is told. (The error has
    // no code: its fixed wording, the SDK's own, is what identifies it.)
    t.onerror = (err) => {
      if (/^ReadBuffer exceeded maximum size/.test(err.message)) overLimit.add(t);
    };
    let partial = "";
    const tail: string[] = [];
    stderrTail.set(t, () => (partial.trim() ? [...tail, partial] : tail));
    t.stderr.on("data", (chunk) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.trim()) continue;
        this.opts.log("debug", `[${cfg.name}] ${line}`);
        tail.push(line);
        if (tail.length > STDERR_TAIL_LINES) tail.shift();
      }
    });
    return t;
  }

  private async listAll(server: string, client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      // the list as it came, its schemas unchecked: a tool's outputSchema is compiled when it is first called
      const page = (await client.request({ method: "tools/list", params: cursor ? { cursor } : undefined }, PASS_THROUGH as never, {
        timeout: this.opts.callTimeoutMs,
      })) as unknown;
      tools.push(...toolsOfPage(server, page));
      cursor = (page as { nextCursor?: unknown }).nextCursor as string | undefined;
      if (cursor !== undefined && typeof cursor !== "string")
        throw new UpstreamError(`server "${server}" answered tools/list with a nextCursor that is not a string`, server, "UPSTREAM_ERROR");
    } while (cursor);
    trace(`${server}: tools listed`);
    const kept = filterTools(this.servers[server], tools);
    if (kept.length !== tools.length)
      this.leftOut.set(
        server,
        tools.filter((t) => !kept.includes(t)).map((t) => t.name),
      );
    this.opts.onTools?.(server, kept);
    return kept;
  }
}

/** the HTTP status of a Streamable HTTP attempt that a legacy SSE server would have answered so (404, 405); undefined otherwise */
function legacySseStatus(cfg: ServerConfig, err: unknown): number | undefined {
  if (cfg.kind !== "http" || cfg.transport === "sse") return undefined;
  const code = (err as { code?: unknown } | null)?.code;
  return /^Streamable HTTP error/.test(String((err as Error)?.message)) && (code === 404 || code === 405) ? code : undefined;
}

/** an HTTP failure in one line: an HTML error page is cut to its first line, nothing beyond 200 characters */
function shortHttpError(err: unknown): string {
  const text = String((err as Error)?.message ?? err)
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** a tools/list page's tools, checked only for what mcpx reads of each: a string name (a schema is read when it is used) */
function toolsOfPage(server: string, page: unknown): Tool[] {
  const tools = (page as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools) || !tools.every((t) => isPlainObject(t) && typeof t.name === "string")) {
    throw new UpstreamError(
      `server "${server}" answered tools/list with something that is not a list of tools ({name, inputSchema, …})`,
      server,
      "UPSTREAM_ERROR",
    );
  }
  return tools as Tool[];
}

/** the SDK callTool's two checks of a tool with an outputSchema: structuredContent is there (unless isError), and matches */
async function checkOutput(tool: string, result: CallResult, check: OutputCheck): Promise<void> {
  if (!result.structuredContent && !result.isError)
    throw await sdkError(SDK_INVALID_REQUEST, `Tool ${tool} has an output schema but did not return structured content`);
  if (!result.structuredContent) return;
  let verdict: ReturnType<OutputCheck>;
  try {
    verdict = check(result.structuredContent);
  } catch (err) {
    throw await sdkError(SDK_INVALID_PARAMS, `Failed to validate structured content: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!verdict.valid) throw await sdkError(SDK_INVALID_PARAMS, `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
}

/** a tools/call answer that is not a result object: made an McpError (sdkError) where the call fails */
class NotAResult extends Error {}

function notAResult(tool: string, result: unknown): NotAResult {
  return new NotAResult(`tools/call "${tool}" answered ${JSON.stringify(result)}, not a result object`);
}

/** an McpError, as the SDK raised it for these checks: callFailure classifies it as the server's ("server") */
async function sdkError(code: number, message: string): Promise<Error> {
  const { McpError } = await import("@modelcontextprotocol/sdk/types.js");
  return new McpError(code, message);
}
