// A stdio server's connection: mcpx's own copy of the SDK's StdioClientTransport (SDK 1.32), for two
// reasons. The SDK's module loads zod and every MCP schema (shared/stdio.js imports types.js), so with
// it a server could only be spawned once the SDK was loaded: a one-shot `mcpx call` spent ~25 ms
// before its server even started. This module loads nothing of the SDK, so the pool spawns the
// server first and loads the SDK while the server starts. And its lines are read with lean-read's
// envelope check instead of the SDK's zod pass over every message (docs/decisions/0011).
// Kept from the SDK's transport: spawned without a shell, stdin and stdout piped, stderr piped into a
// stream a caller may read from before start; the process's 'close' is onclose; a chunk that would
// grow the unread buffer past maxBufferSize clears it, is an onerror ("ReadBuffer exceeded maximum
// size of N bytes", the SDK's words, which the pool recognises) and closes the transport; a line that
// is not a JSON-RPC message is an onerror and reading goes on.

import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcMessage } from "./lean-read.ts";

export interface StdioServer {
  command: string;
  args: string[];
  /** the whole environment the server gets (the pool builds it: docs/decisions/0002) */
  env: Record<string, string>;
  cwd?: string;
  /** the most unread bytes a message may take (mcp.maxMessage) */
  maxBufferSize: number;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** the server's stderr, readable before start (the pool reads it from the first line) */
  readonly stderr = new PassThrough();
  private process?: ChildProcess;
  private started?: Promise<void>;
  private buffer?: Buffer;

  constructor(private readonly server: StdioServer) {}

  /** the server's pid once spawned (spawning is synchronous inside start) */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /**
   * Spawns the server; resolves once it is running, rejects when it cannot be spawned. A second call
   * gives the first one's promise: the pool starts the transport before loading the SDK, and the
   * SDK's Client.connect starts it again.
   */
  start(): Promise<void> {
    this.started ??= new Promise<void>((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, {
        env: this.server.env,
        cwd: this.server.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
      });
      this.process = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.process = undefined;
        this.onclose?.();
      });
      // each write the pipe does not take at once waits for one 'drain': a script's 1000 concurrent
      // calls are not a leak, and Node's warning would reach the user's terminal
      child.stdin!.setMaxListeners(0);
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout!.on("error", (error) => this.onerror?.(error));
      child.stderr!.pipe(this.stderr);
    });
    return this.started;
  }

  private read(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.server.maxBufferSize) {
      this.buffer = undefined;
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${this.server.maxBufferSize} bytes`));
      void this.close();
      return;
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const index = this.buffer.indexOf(10); // "\n"
      if (index === -1) return;
      let line = this.buffer.toString("utf8", 0, index);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      this.buffer = this.buffer.subarray(index + 1);
      let message: JSONRPCMessage;
      try {
        message = jsonRpcMessage(JSON.parse(line)) as JSONRPCMessage;
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin;
      // the server may exit before the SDK is loaded and listening: initialize then fails as closed
      if (!stdin) return reject(new Error(this.started ? "Connection closed" : "Not connected"));
      if (stdin.write(JSON.stringify(message) + "\n")) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Closes the server's stdin (the MCP way to ask a stdio server to exit) and resolves once it has
   * exited. Signals are the pool's job (Pool.stop, with the server's whole process tree): this waits
   * for the exit they cause, and never sends any itself.
   */
  async close(): Promise<void> {
    const child = this.process;
    this.buffer = undefined;
    if (!child) return;
    this.process = undefined;
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => child.once("exit", () => r()));
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await exited;
  }
}
