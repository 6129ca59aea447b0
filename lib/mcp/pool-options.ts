// What a Pool is made with (pool.ts): its limits, where it keeps what it remembers, and the hooks
// and listeners the engine wires to it (lib/session/engine.ts).

import type { BrokenServer, ServerConfig } from "../config/servers.ts";
import type { Progress } from "./server-notes.ts";
import type { Tool } from "./tool.ts";
import type { ServerAsks } from "./server-asks.ts";

export interface PoolOptions {
  /** where server stderr, lifecycle notes and a server's logs that no run takes go; `source`: the server a log came from */
  log(level: "debug" | "info" | "warn" | "error", message: string, source?: string): void;
  /** logging.level: what each server that declares logging is asked for (logging/setLevel) */
  logLevel?: "debug" | "info" | "warn" | "error" | "silent";
  callTimeoutMs: number;
  /** mcp.startTimeout: spawn (or connect) to initialize answered */
  startTimeoutMs: number;
  /** mcp.maxMessage: the stdio read limit for one message from a server */
  maxMessageBytes: number;
  /** where each entry's protocol era verdict is remembered (lib/mcp/protocol-era.ts eraDir); undefined: probed at every start */
  eraDir?: string;
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
  /**
   * a tool's notifications/progress during a call (a status line shows it); undefined once the call
   * ends. Given only where it is shown: a call asks for progress only where someone takes it
   */
  onProgress?(server: string, tool: string, progress: Progress | undefined): void;
  /** told each time a server's tool list is read (the catalogue cache keeps it) */
  onTools?(server: string, tools: Tool[]): void;
  /** who answers what a server asks of mcpx (elicitation, sampling) and the root it is offered (server-asks.ts) */
  asks?: ServerAsks;
  /** configured entries that cannot be used: a script sees their namespaces, and using one is the error */
  broken?: Readonly<Record<string, BrokenServer>>;
}
