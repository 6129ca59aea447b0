// The stdio client transport, on Bun's own process and pipe APIs. The SDK's StdioClientTransport
// reaches the server through node:child_process streams, which Bun emulates over its native pipes:
// every answer then crosses a Readable, an 'data' event, a Buffer.concat and a zod parse of the whole
// message, a sizeable share of each tools/call round trip (decision 0011 has the figures). This is the SDK transport's behaviour, kept: the
// same inherited environment, stderr piped to whoever listens, a line per message, a message over
// maxBufferSize reported through onerror with the SDK's own words and the transport closed, a line
// that is not a JSON-RPC message reported through onerror and skipped. close() ends the server on
// the one schedule of lib/process/end.ts endServer (stdin ended, then SIGTERM and SIGKILL to its
// process tree), whoever closes it: the pool, the SDK on a failed initialize, an over-size message.
// Its stdin and stdout are socket pairs mcpx makes and reads through Bun's socket API where libc
// allows (stdio-sockets.ts says why), and Bun's own pipes elsewhere.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { FileSink, Subprocess } from "bun";
import { jsonRpcMessage } from "./lean-read.ts";
import { takeEarlyServer } from "./early-server.ts";
import { LineReader } from "./line-reader.ts";
import { serverLineage, serverSpawn } from "./server-spawn.ts";
import { beforeExit } from "../util/before-exit.ts";
import { stdinSocket, stdioPairs, type StdinWriter } from "./stdio-sockets.ts";
import { closeFds, readSocket } from "../process/fd-pairs.ts";
import { endServer } from "../process/end.ts";

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** the largest message (one line) read from the server; the SDK's maxBufferSize */
  maxBufferSize: number;
  /** Bun's pipes even where mcpx can make socket pairs (the tests read through both) */
  pipes?: boolean;
}

/** a message from the server over the read limit: the transport closes after it */
export class MessageTooLargeError extends Error {
  constructor(maxBufferSize: number) {
    super(`ReadBuffer exceeded maximum size of ${maxBufferSize} bytes`);
  }
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private proc?: Subprocess<"pipe" | "ignore", "pipe" | "ignore", "pipe">;
  /** the server's stdin, set with proc */
  private stdin?: StdinWriter;
  private readonly stderrListeners: Array<(chunk: Buffer) => void> = [];
  /** the server's stderr, listened to before start() so nothing it writes early is lost */
  readonly stderr = {
    on: (_event: "data", listener: (chunk: Buffer) => void) => {
      this.stderrListeners.push(listener);
    },
  };
  /** how the server's stdin and stdout are reached, once started (stdio-sockets.ts) */
  channel?: "sockets" | "pipes";
  /** the pid, kept after the process is gone (the pool ends what it started by it) */
  pid: number | null = null;

  private started?: Promise<void>;

  constructor(private readonly params: StdioParams) {}

  /**
   * Spawns the server. A second call gives the first one's promise: the pool starts the transport
   * before it loads the SDK (whose modules take a while to load, time the server spends starting), and the
   * SDK's Client.connect starts it again.
   */
  start(): Promise<void> {
    this.started ??= this.spawn();
    return this.started;
  }

  private async spawn(): Promise<void> {
    const spawn = serverSpawn(this.params);
    // a `mcpx call` may have started this very server already, before it read its config (on pipes:
    // its one call gains nothing from the socket pairs, which need libc loaded first)
    const early = takeEarlyServer(spawn);
    const pairs = early || this.params.pipes ? undefined : stdioPairs();
    let proc: Subprocess<"pipe" | "ignore", "pipe" | "ignore", "pipe">;
    // before the spawn: the lineage makes this host the subreaper that the server's orphans come to
    const lineage = early?.lineage ?? serverLineage();
    try {
      proc = (early?.proc ??
        Bun.spawn({
          ...spawn,
          env: { ...spawn.env, ...lineage.env() },
          stdin: pairs ? pairs.stdin.theirs : "pipe",
          stdout: pairs ? pairs.stdout.theirs : "pipe",
          stderr: "pipe",
        })) as typeof proc;
    } catch (err) {
      if (pairs) closeFds(pairs.stdin.ours, pairs.stdout.ours);
      this.onerror?.(err as Error);
      throw err;
    } finally {
      // the server holds its ends now (or never will): with only ours left, its exit is our end of file
      if (pairs) closeFds(pairs.stdin.theirs, pairs.stdout.theirs);
    }
    this.pid = proc.pid;
    // the server's end, stopped or crashed, ends what it left behind; mcpx waits for that before it exits
    if (!early) lineage.track(proc.pid, false);
    this.ended = untilExit(
      proc.exited.then(() => lineage.end()),
      () => this.close(),
    );
    this.channel = pairs ? "sockets" : "pipes";
    const lines = new LineReader(
      this.params.maxBufferSize,
      (text) => this.deliver(text),
      () => this.overLimit(),
    );
    let stdout: Promise<void>;
    if (pairs) {
      const [reading, stdin] = await Promise.all([
        readSocket(
          pairs.stdout.ours,
          (chunk) => lines.push(chunk),
          (err) => this.onerror?.(err),
        ),
        stdinSocket(pairs.stdin.ours),
      ]);
      stdout = reading.ended;
      this.stdin = stdin;
    } else {
      stdout = this.readMessages(proc.stdout as ReadableStream<Uint8Array>, lines);
      this.stdin = fileSinkWriter(proc.stdin as FileSink);
    }
    this.proc = proc;
    const reading = Promise.all([stdout, this.readStderr(proc.stderr)]);
    // closed as node's 'close' is: the process has exited and its pipes are read to their end (a
    // process the server left may hold them: it ends with the server's lineage)
    this.closed = Promise.all([this.ended, reading]).then(() => {
      if (this.proc === proc) this.proc = undefined;
      this.onclose?.();
    });
  }

  private closed?: Promise<void>;
  /** resolves once the server has exited and its lineage has ended */
  private ended?: Promise<void>;

  /**
   * Resolves once the process has exited and everything it wrote has been read, or after `ms` (a
   * process the server started may hold its pipes open): a server that failed to start is quoted
   * from the whole of its stderr, not from what happened to be read when its initialize failed.
   */
  async readToEnd(ms: number): Promise<void> {
    if (this.closed) await Promise.race([this.closed, Bun.sleep(ms)]);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.proc ? this.stdin : undefined;
    // the server may exit before the SDK is loaded and listening: initialize then fails as closed
    if (!stdin) return Promise.reject(new Error(this.started ? "Connection closed" : "Not connected"));
    try {
      return stdin.write(JSON.stringify(message) + "\n") ?? SENT;
    } catch (err) {
      // a server that has exited: the SDK's words for a connection that is gone, not the pipe's
      const gone = (err as { code?: string }).code === "EPIPE" ? new Error("Connection closed") : (err as Error);
      this.onerror?.(gone);
      return Promise.reject(gone);
    }
  }

  /** a second close while the first ends the server waits for the same end (the pool's stop after the SDK's own close) */
  async close(): Promise<void> {
    const proc = this.proc;
    if (proc) {
      this.proc = undefined;
      this.closing = endServer(proc.pid, () => {
        try {
          this.stdin?.end();
        } catch {
          // already closed: the process is going or gone
        }
      }).then(() => this.ended);
    }
    await this.closing;
  }

  /** the server being ended, from the first close() on */
  private closing?: Promise<void>;

  /**
   * Bun's pipe: its chunks to the line reader. The chunk's bytes are read as they are: wrapping them
   * in a Buffer (through `chunk.buffer`) made the engine materialise an ArrayBuffer for every answer read.
   */
  private async readMessages(stream: ReadableStream<Uint8Array>, lines: LineReader): Promise<void> {
    try {
      for await (const chunk of stream) if (!lines.push(chunk)) return;
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  private deliver(text: string): void {
    try {
      this.onmessage?.(jsonRpcMessage(JSON.parse(text.endsWith("\r") ? text.slice(0, -1) : text)) as JSONRPCMessage);
    } catch (err) {
      // as the SDK's transport: a line that is not a message, or a handler that threw, is said, and the next line is read
      this.onerror?.(err as Error);
    }
  }

  /** the SDK's words for it, as an error the pool tells apart by its class (server-transport.ts) */
  private overLimit(): void {
    this.onerror?.(new MessageTooLargeError(this.params.maxBufferSize));
    void this.close();
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (const listener of this.stderrListeners) listener(buf);
      }
    } catch {
      // stderr is only ever shown: a broken stderr pipe loses nothing the protocol needs
    }
  }
}

/**
 * servers' lineages still ending, each with how to stop its server: mcpx exits once they have (a
 * crashed server's, which nobody stops, too). A server still running then is stopped first: one
 * that a run's last call was still starting when the run ended would otherwise hold mcpx's exit
 * for ever (`mcpx exec 'fake.echo({message: "x"})'`, the call not awaited, hung).
 */
const ending = new Map<Promise<void>, () => Promise<void>>();

function untilExit(end: Promise<void>, stop: () => Promise<void>): Promise<void> {
  if (!waitedAtExit) {
    waitedAtExit = true;
    beforeExit(async () => {
      while (ending.size > 0) {
        for (const stopIt of ending.values()) void stopIt();
        await Promise.all([...ending.keys()]);
      }
    });
  }
  ending.set(end, stop);
  void end.finally(() => ending.delete(end));
  return end;
}
let waitedAtExit = false;

/** what a write resolves to: the line is with the kernel, or queued for it in order (a FileSink flushes it) */
const SENT = Promise.resolve();

/** Bun's pipe to the server's stdin, where mcpx makes no socket pair */
function fileSinkWriter(sink: FileSink): StdinWriter {
  return {
    write(text) {
      sink.write(text);
      const flushed = sink.flush();
      return flushed instanceof Promise ? flushed.then(() => {}) : undefined;
    },
    end: () => void sink.end(),
  };
}
