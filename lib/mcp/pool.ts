// The upstream pool: one SDK client per configured server, started on first use (a script that never
// touches a server never starts it), dropped when its transport closes or a call hangs, so the next
// call reconnects. Its parts: the entries (server-entries.ts), the transport and a failed start
// (server-transport.ts), the era (protocol-era.ts), the tool list (tool-list.ts), a failed call
// (call-failure.ts), output checks (output-check.ts), where logs and progress go (note-routing.ts),
// what a server may ask of mcpx (server-asks.ts); what it keeps per server is connection.ts.

import "./zod-interpreted.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ServerConfig } from "../config/servers.ts";
import { isHookToolName } from "./tool-names.ts";
import { filterTools } from "./tool-filter.ts";
import type { CallResult, Tool } from "./tool.ts";
import { VERSION } from "../version.ts";
import { isPlainObject } from "../util/json-type.ts";
import { StdioTransport } from "./stdio-transport.ts";
import { leanRequests } from "./lean-request.ts";
import { trace } from "../util/trace.ts";
import { SEND_FEATURE_REQUEST, SEND_TOOLS_CALL } from "./upstream-call.ts";
import { featureFailure, listAllOf, requestFeature, type FeatureOp, type ListMethod } from "./server-features.ts";
import { failedCall, notAResult } from "./call-failure.ts";
import { closedTransports, overLimitTransports, outputValidator, plainCall, callParams, type Connection, type OneCall } from "./connection.ts";
import { checkOutput, outputCheck } from "./output-check.ts";
import { legacySseStatus, serverTransport, startError } from "./server-transport.ts";
import { ServerEntries } from "./server-entries.ts";
import { listingOf, listTools } from "./tool-list.ts";
import { UpstreamError } from "./upstream-error.ts";
import { ServerUse } from "./server-use.ts";
import { negotiateEra, writeVerdict } from "./protocol-era.ts";
import type { PoolOptions } from "./pool-options.ts";
import { serverLogOf, type CallNotes } from "./server-notes.ts";
import { NoteRouting } from "./note-routing.ts";
import { askingFor } from "./server-asks.ts";
import { callAsTask, needsTask } from "./task-call.ts";

export type { CallResult, Tool };

/** what Pool.startState says of one server */
export type ServerStartState = { state: "up" | "starting" | "down" } | { state: "failed"; reason: string };

export class Pool extends ServerEntries {
  private readonly conns = new Map<string, Promise<Connection>>();
  /** each open connection with the promise it came from: current only while conns still holds that promise */
  private readonly opened = new Map<string, { p: Promise<Connection>; conn: Connection }>();
  /** when each server was last used, and its calls in flight (server-use.ts) */
  private readonly use = new ServerUse();
  /** servers being stopped (a dropped server is no longer in conns): close() waits for them too */
  private readonly stopping = new Set<Promise<void>>();
  /** where each server's logs and each call's progress go (note-routing.ts) */
  private readonly notes: NoteRouting;

  constructor(
    servers: Readonly<Record<string, ServerConfig>>,
    private readonly opts: PoolOptions,
  ) {
    super(servers, opts.broken);
    this.notes = new NoteRouting(opts, (server, notes) => this.openNow(server)?.lean?.cancel(notes, "the run ended"));
  }

  /** every tool the server lists, lifecycle hook tools included (callers partition them) */
  async tools(server: string): Promise<Tool[]> {
    // in use while it starts and lists: a slow start (npx) must not look idle to the daemon's reaper
    return this.use.during(server, async () => {
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
    await this.use.during(server, () => this.connect(server));
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
   * @param notes the run's: where the server's logs and the call's progress go, and its end, which cancels the call
   * @param meta keys for the request's `params._meta`: the call's W3C trace context, where it is traced
   */
  [SEND_TOOLS_CALL](
    server: string,
    tool: string,
    args: Record<string, unknown>,
    timeoutMs = this.opts.callTimeoutMs,
    keepOnTimeout = false,
    notes?: CallNotes,
    meta?: Readonly<Record<string, string | undefined>>,
  ): Promise<CallResult> {
    if (notes) this.notes.listen(server, notes);
    const c: OneCall = { server, tool, args, timeoutMs, keepOnTimeout, notes, ...(meta ? { meta } : {}) };
    const calling = this.callNow(c) ?? this.use.during(server, () => this.callOn(c));
    return this.opts.onProgress ? calling.finally(() => this.opts.onProgress!(server, tool, undefined)) : calling;
  }

  /** one of the server's other lists (resources, resource templates, prompts), every page; read each time, and no hook holds it up, as tools/list */
  async list(server: string, method: ListMethod): Promise<unknown[]> {
    return this.use.during(server, async () => listAllOf(server, (await this.connect(server)).client, method, this.opts.callTimeoutMs));
  }

  /**
   * One resources/read or prompts/get, reachable only through the SEND_FEATURE_REQUEST capability
   * that only the gate's resource.read and prompt.get points hold (lib/mcp/upstream-call.ts).
   */
  [SEND_FEATURE_REQUEST](server: string, op: FeatureOp, target: string, args: Record<string, string>, timeoutMs = this.opts.callTimeoutMs) {
    return this.use.during(server, async () => {
      const conn = await this.connect(server);
      try {
        return await requestFeature(server, conn.client, op, target, args, timeoutMs);
      } catch (err) {
        const failed = await featureFailure(server, conn, { op, target, timeoutMs, maxMessageBytes: this.opts.maxMessageBytes }, err);
        if (failed.drop) void this.drop(server, failed.drop);
        throw failed.error;
      }
    });
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
   * turn and its answer takes one promise reaction, where during() and callOn took one per async layer
   * (docs/decisions/0011); the server is busy, and then used, exactly as during() counts it. Undefined
   * sends the call the usual way.
   */
  private callNow(c: OneCall): Promise<CallResult> | undefined {
    const { server, tool, timeoutMs, notes } = c;
    const conn = this.openNow(server);
    if (!conn?.lean || conn.outputChecks.get(tool) !== null) return undefined;
    const idle = this.use.busyWith(server);
    const onprogress = this.notes.progressOf(server, tool, notes);
    return conn.lean("tools/call", callParams(c), timeoutMs, onprogress, notes).then(
      (result) => {
        if (!isPlainObject(result)) return this.callFailed(conn, c, notAResult(tool, result)).finally(idle);
        idle();
        return result as CallResult;
      },
      (err) => this.callFailed(conn, c, err).finally(idle),
    );
  }

  private async callOn(c: OneCall): Promise<CallResult> {
    const { server, tool, notes } = c;
    // an open connection and a tool called before are used as they are: no promise turn to wait for either
    const conn = this.openNow(server) ?? (await this.connect(server));
    try {
      // the SDK's callTool minus its zod pass over every result; its two checks are kept (checkOutput)
      const known = conn.outputChecks.get(tool);
      const check = known !== undefined ? known : await outputCheck(conn, tool);
      const onprogress = this.notes.progressOf(server, tool, notes);
      const result = needsTask(conn, tool) ? await callAsTask(conn, c, onprogress) : await plainCall(conn, c, onprogress);
      if (!isPlainObject(result)) throw notAResult(tool, result);
      if (check) await checkOutput(tool, result as CallResult, check);
      return result as CallResult;
    } catch (err) {
      return this.callFailed(conn, c, err);
    }
  }

  /** a failed tools/call, said as the UpstreamError its cause calls for (call-failure.ts); a server that hung or closed is dropped */
  private async callFailed(conn: Connection, c: OneCall, cause: unknown): Promise<never> {
    const { server, tool, timeoutMs, keepOnTimeout, notes } = c;
    const failed = await failedCall(
      {
        server,
        tool,
        timeoutMs,
        keepOnTimeout,
        maxMessageBytes: this.opts.maxMessageBytes,
        overLimit: overLimitTransports.has(conn.transport),
        closed: closedTransports.has(conn.transport),
        cancelled: notes?.signal.aborted,
      },
      cause,
    );
    if (failed.drop) void this.drop(server, failed.drop);
    throw failed.error;
  }

  /** ms timestamp of the server's last use (now, while a call is in flight); undefined if never used (the daemon's idle reaper reads it) */
  lastUsed(server: string): number | undefined {
    return this.use.lastUsed(server);
  }

  /** true once a server has been started in this pool */
  started(server: string): boolean {
    return this.conns.has(server);
  }

  /** each server's last failed start, by name; cleared when it starts (the daemon's readiness reads it) */
  private readonly failed = new Map<string, string>();

  /**
   * Where the server's start stands: up (it answered initialize), starting, failed (its last start's
   * error, until a start succeeds) or down (never started here, or stopped since).
   */
  startState(server: string): ServerStartState {
    if (this.conns.has(server)) return this.openNow(server) ? { state: "up" } : { state: "starting" };
    const reason = this.failed.get(server);
    return reason !== undefined ? { state: "failed", reason } : { state: "down" };
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
   * Closes a client; a stdio server's transport ends the server and what it started (`npx` → `node`)
   * on the one schedule of lib/process/end.ts endServer. Stopped means closed: the transport waits
   * until Bun has reaped the server and every process of the tree is gone. Not sooner: /proc shows a
   * zombie while its threads tear down, and an exit then leaves it to an init that may never reap it.
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
        (conn) => {
          this.opened.set(server, { p: opening, conn });
          this.failed.delete(server);
        },
        (e) => {
          if (this.conns.get(server) !== opening) return;
          this.conns.delete(server);
          this.failed.set(server, (e as Error)?.message ?? String(e));
        },
      );
    }
    return p;
  }

  /** the server's connection if it is open and still the pool's, without waiting a turn for it */
  private openNow(server: string): Connection | undefined {
    const o = this.opened.get(server);
    return o && this.conns.get(server) === o.p ? o.conn : undefined;
  }

  /**
   * @param legacy the retry over legacy SSE after a Streamable HTTP 404/405: its config, and what the first attempt was told
   * @param probed the restart after the probe ended the server's connection: the 2025 handshake alone, without a probe
   */
  private async open(server: string, legacy?: { cfg: ServerConfig; first: string }, probed = false): Promise<Connection> {
    const cfg = legacy?.cfg ?? this.entry(server);
    // a retry is the same start: its before hooks have run
    if (!legacy && !probed) await this.opts.startGate?.(cfg, "before", {});
    const transport = await serverTransport(cfg, this.opts);
    let client: Client | undefined;
    transport.onclose = () => {
      closedTransports.add(transport);
      // keep only a live connection in the pool (one that failed to open rejects, to whoever awaited it)
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
    const asking = await askingFor(server, cfg, this.opts.asks);
    const negotiated = probed ? undefined : await negotiateEra(server, cfg, transport, this.opts, asking);
    // the 2026-07-28 era, through the SDK v2 client: its requests carry the SDK's `_meta` envelope, so no lean path
    if (negotiated?.era === "modern") {
      this.notes.modernLogs(server, negotiated.client);
      return this.startedOn(server, cfg, { client: negotiated.client as unknown as Client, transport: negotiated.transport, outputChecks: new Map() });
    }
    if (negotiated?.closed) {
      // the server ended its connection at the probe (some 2025 servers exit on any request before
      // initialize): it is a 2025 server, started again for the handshake once
      await transport.close().catch(() => {});
      return this.open(server, legacy, true);
    }
    const [{ Client }, ajv, { McpError, ToolListChangedNotificationSchema, LoggingMessageNotificationSchema }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/validation/ajv"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    trace(`${server}: sdk loaded`);
    client = new Client({ name: "mcpx", version: VERSION }, { capabilities: asking.capabilities, jsonSchemaValidator: outputValidator(ajv) });
    await asking.answerV1(client);
    // before initialize: a server may log as soon as it is initialized
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => this.notes.serverLog(serverLogOf(server, n.params)));
    const connecting = client.connect(transport, { timeout: this.opts.startTimeoutMs });
    try {
      await connecting;
      trace(`${server}: initialized`);
      if ((negotiated || probed) && this.opts.eraDir) writeVerdict(this.opts.eraDir, cfg, { era: "legacy" });
    } catch (err) {
      await this.stop(client);
      const status = legacySseStatus(cfg, err);
      // the MCP SDK's advice for a client that meets an older server: a Streamable HTTP POST answered
      // 404 or 405 means the URL may speak the legacy HTTP+SSE transport (MCP 2024-11-05); try that once
      if (status !== undefined) {
        trace(`${server}: Streamable HTTP answered ${status}; trying legacy SSE`);
        return this.open(server, { cfg: { ...cfg, transport: "sse" } as ServerConfig, first: `HTTP ${status} to a Streamable HTTP POST` });
      }
      const error = await startError(server, cfg, err, transport, { legacy: legacy?.first, startTimeoutMs: this.opts.startTimeoutMs });
      await this.opts.startGate?.(cfg, "onError", { error });
      throw error;
    }
    this.notes.askLevel(server, client);
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
    return this.startedOn(server, cfg, { client, transport, outputChecks: new Map(), lean });
  }

  /** a connection once its server answered: the start's onSuccess hooks (which may refuse it), then server.started */
  private async startedOn(server: string, cfg: ServerConfig, conn: Connection): Promise<Connection> {
    if (this.opts.startGate) {
      try {
        // listed only if the gate asks (a call that knows its tool from the catalogue cache never waits
        // for a tools/list); `_` lifecycle hook tools are never counted, as mcpx ls and mcpx_namespaces count
        const tools = async () => (await listingOf(conn, () => this.listAll(server, conn.client))).filter((t) => !isHookToolName(t.name)).length;
        await this.opts.startGate(cfg, "onSuccess", { tools });
      } catch (err) {
        await this.stop(conn.client);
        throw err;
      }
    }
    this.opts.onEvent?.("server.started", { server });
    return conn;
  }

  private async listAll(server: string, client: Client): Promise<Tool[]> {
    const tools = await listTools(server, client, this.opts.callTimeoutMs);
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
