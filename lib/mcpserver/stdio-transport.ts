// `mcpx serve`'s end of stdio: one JSON-RPC message a line on stdin, one a line on stdout. Used
// instead of the SDK's StdioServerTransport, which closes itself when its buffer passes its limit:
// one oversized request ended the whole server, in silence. Here a line over
// mcp.maxMessage is skipped without being held, answered with -32600 when its id can be read from
// either end, and the next line is read.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineReader, type LongLine } from "../mcp/line-reader.ts";
import { idOfCutMessage, tooLargeAnswer } from "./long-request.ts";

export interface LineServerOptions {
  /** the longest line read, in bytes (mcp.maxMessage) */
  maxMessage: number;
  /** a line over maxMessage whose id nobody can read: said here (stderr), since no one can be answered */
  unanswerable(text: string): void;
}

export class StdioLineServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly lines: LineReader;
  private started = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    private readonly stdout: NodeJS.WritableStream,
    private readonly options: LineServerOptions,
  ) {
    this.lines = new LineReader(options.maxMessage, (text) => this.deliver(text), { skip: (long) => this.tooLong(long) });
  }

  private readonly ondata = (chunk: Uint8Array | string) => {
    this.lines.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  private readonly onStdinError = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioLineServerTransport already started (Server.connect starts it)");
    this.started = true;
    this.stdin.on("data", this.ondata);
    this.stdin.on("error", this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.ondata);
    this.stdin.off("error", this.onStdinError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.onclose?.();
  }

  private deliver(text: string): void {
    try {
      // the SDK's own check of each line, as its transport made it
      this.onmessage?.(deserializeMessage(text));
    } catch (err) {
      // a line that is not a message is said, and the next line is read (as the SDK's transport does)
      this.onerror?.(err as Error);
    }
  }

  private tooLong(long: LongLine): void {
    const id = idOfCutMessage(long.head, long.tail);
    const what = `a message of ${long.bytes} bytes is larger than mcp.maxMessage (${this.options.maxMessage} bytes)`;
    if (id === undefined) {
      this.options.unanswerable(`mcpx serve: skipped ${what}, with no id mcpx could read to answer it`);
      return;
    }
    const message =
      `Invalid Request: ${what}: send less (put large input in a file the script reads), or raise ` +
      `mcp.maxMessage (MCPX_MCP_MAX_MESSAGE, or --mcp-max-message) where mcpx serve runs`;
    this.send(tooLargeAnswer(id, message)).catch((err: Error) => this.onerror?.(err));
  }
}
