// The transport a configured server is reached through: mcpx's own stdio transport (its stderr to
// the log at debug level, its last lines kept for the error of a failed start), Streamable HTTP with
// the stored OAuth login, or the legacy HTTP+SSE transport a Streamable HTTP 404/405 falls back to;
// and what a server that could not be started that way is told to have done.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerConfig } from "../config/servers.ts";
import { overLimitTransports } from "./connection.ts";
import { callFailure } from "./call-failure.ts";
import { AuthRequiredError, storedAuth } from "./oauth/provider.ts";
import { serverEnv } from "./server-spawn.ts";
import { MessageTooLargeError, StdioTransport } from "./stdio-transport.ts";
import { UpstreamError } from "./upstream-error.ts";

/** what a transport is made with, from the pool's options */
export interface TransportOptions {
  log(level: "debug", message: string): void;
  maxMessageBytes: number;
  authDir?: string;
  baseEnv: Record<string, string | undefined>;
}

/** how long a server that failed to start may take to have its stderr read to the end, which its error quotes */
const STDERR_READ_MS = 500;

/** the last lines a stdio server wrote on stderr, shown when it fails to start (they say why) */
const stderrTail = new WeakMap<Transport, () => string[]>();
/** how many of them: enough for a stack or a usage message, not a log (change freely) */
const STDERR_TAIL_LINES = 12;

export async function serverTransport(cfg: ServerConfig, opts: TransportOptions): Promise<Transport> {
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
      ...storedAuth(cfg, opts.authDir, (message) => opts.log("debug", message)),
    });
  }
  const env = serverEnv(opts.baseEnv, cfg.env);
  const t = new StdioTransport({ command: cfg.command, args: cfg.args, env, cwd: cfg.cwd, maxBufferSize: opts.maxMessageBytes });
  // The transport reports a message over its read limit only through onerror, then closes, and the
  // pending call fails as "Connection closed"; remember why, so the caller is told.
  t.onerror = (err) => {
    if (err instanceof MessageTooLargeError) overLimitTransports.add(t);
  };
  let partial = "";
  const tail: string[] = [];
  stderrTail.set(t, () => (partial.trim() ? [...tail, partial] : tail));
  t.stderr.on("data", (chunk) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.trim()) continue;
      opts.log("debug", `[${cfg.name}] ${line}`);
      tail.push(line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
    }
  });
  return t;
}

/**
 * The error of a server that could not be started: where it was started from, why (the legacy SSE
 * retry's failure after a Streamable HTTP 404/405, the start timeout, or the SDK's words), and the
 * last lines of its stderr, read to the end first.
 */
export async function startError(
  server: string,
  cfg: ServerConfig,
  err: unknown,
  transport: Transport,
  at: { /** what the Streamable HTTP attempt was told, when this was the legacy SSE retry */ legacy?: string; startTimeoutMs: number },
): Promise<UpstreamError> {
  if (err instanceof AuthRequiredError) return new UpstreamError(err.message, server, "AUTH_REQUIRED");
  const where = cfg.kind === "stdio" ? `${cfg.command} ${cfg.args.join(" ")}`.trim() : cfg.url;
  const why = at.legacy
    ? `it answered ${at.legacy}, and the legacy SSE transport failed too (${shortHttpError(err)}): check the URL ` +
      `(Streamable HTTP endpoints are often …/mcp, legacy SSE ones …/sse)`
    : callFailure(err, false) === "timeout"
      ? `it did not answer initialize within ${at.startTimeoutMs}ms (mcp.startTimeout)`
      : String((err as Error)?.message ?? err);
  if (transport instanceof StdioTransport) await transport.readToEnd(STDERR_READ_MS);
  const tail = stderrTail.get(transport)?.() ?? [];
  const said = tail.length ? `. Its stderr ended with:\n  ${tail.join("\n  ")}\n` : ". ";
  return new UpstreamError(
    `server "${server}" could not be started (${where}): ${why}${said}Its config is ` +
      `in ${cfg.origin}; run with --logging-level debug to see all its stderr`,
    server,
    "UPSTREAM_START",
  );
}

/** the HTTP status of a Streamable HTTP attempt that a legacy SSE server would have answered so (404, 405); undefined otherwise */
export function legacySseStatus(cfg: ServerConfig, err: unknown): number | undefined {
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
