// Which protocol era a server is spoken to in (docs/decisions/0020-protocol-eras.md): the 2025 era
// (`initialize`, the SDK v1 client mcpx has always used, byte for byte) or the 2026-07-28 era (no
// `initialize`: `server/discover` and a `_meta` envelope on every request, the SDK v2 client). An
// entry's `protocolVersion` pins it; otherwise the verdict remembered for the entry decides; otherwise
// the SDK v2 client probes with `server/discover` on the server's own transport, and a server that
// offers no 2026 revision is spoken to with `initialize` on the same connection (no second spawn).
// The verdict is remembered in the state directory per entry, keyed by what starts it, so a stdio
// server started for one command does not pay the probe each time.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client as V2Client, DiscoverResult } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerConfig } from "../config/servers.ts";
import { sha256 } from "../paths/content-file.ts";
import { stableStringify } from "../util/stable-json.ts";
import { VERSION } from "../version.ts";
import type { PoolOptions } from "./pool-options.ts";
import { storedAuth } from "./oauth/provider.ts";
import { startError } from "./server-transport.ts";
import { trace } from "../util/trace.ts";
import type { Asking } from "./server-asks.ts";
import { modernClients } from "./modern-tools.ts";

/** the 2026 revision mcpx speaks */
const MODERN_REVISION = "2026-07-28";

/** what is remembered of one entry's negotiation */
export type Verdict = { era: "legacy" } | { era: "modern"; discover: DiscoverResult };

/**
 * How long the first contact's probe waits for an answer before taking a silent stdio server for a
 * 2025 one (the SDK's rule: a 2025 server may never answer an unknown request before `initialize`).
 * Its own bound, not mcp.startTimeout: `initialize` then still gets the whole start timeout.
 */
const PROBE_TIMEOUT_MS = 5000;

/** the file of an entry's verdict: the hash of what starts it (not its origin), so an edited entry is probed afresh */
function verdictFile(dir: string, cfg: ServerConfig): string {
  const { origin: _o, toolFilter: _f, imported: _i, protocolVersion: _p, roots: _r, ...identity } = cfg;
  return join(dir, `${sha256(stableStringify(identity)).slice(0, 24)}.json`);
}

/** the state directory's folder of verdicts */
export function eraDir(stateDir: string): string {
  return join(stateDir, "protocol-eras");
}

function readVerdict(dir: string, cfg: ServerConfig): Verdict | undefined {
  try {
    const v = JSON.parse(readFileSync(verdictFile(dir, cfg), "utf8")) as { era?: unknown; discover?: unknown };
    if (v.era === "legacy") return { era: "legacy" };
    if (v.era === "modern" && v.discover && typeof v.discover === "object") return { era: "modern", discover: v.discover as DiscoverResult };
  } catch {}
  return undefined;
}

/** remembers a verdict; a state directory that cannot be written only costs the next start a probe */
export function writeVerdict(dir: string, cfg: ServerConfig, verdict: Verdict): void {
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(verdictFile(dir, cfg), JSON.stringify({ server: cfg.name, ...verdict, storedAt: new Date().toISOString() }));
  } catch {}
}

/**
 * The SDK v2 Streamable HTTP transport of an entry, with its headers and the OAuth provider every
 * other command's transport gets (provider.ts): the probe sends the stored access token, refreshes
 * it when the server says it expired, and, where mcpx holds no login the server accepts, fails with
 * the error that says to run `mcpx auth` (a 2026 server may refuse everything but that 401, so no
 * 2025 handshake after it could say so).
 */
async function modernHttpTransport(cfg: Extract<ServerConfig, { kind: "http" }>, opts: Pick<PoolOptions, "authDir" | "log">): Promise<Transport> {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const auth = storedAuth(cfg, opts.authDir, (message) => opts.log("debug", message));
  return new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: cfg.headers }, ...(auth as object) }) as unknown as Transport;
}

/** what a 2025 Streamable HTTP server answers a 2026 probe with: an HTTP 4xx (no session, an unknown method or version, no credentials) */
function httpRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === "number" && status >= 400 && status < 500;
}

/**
 * The transport as the probe sees it: everything is the transport's, but a close the SDK makes when
 * the probe finds no 2026 revision is not carried out, so the 2025 handshake can follow on the same
 * connection (the process, for stdio, is not spent). Once `keep()` is called closes go through.
 */
function probeView(transport: Transport): { view: Transport; keep(): void } {
  let probing = true;
  const view = new Proxy(transport, {
    get(target, key) {
      if (key === "close" && probing) return async () => {};
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(target, key, value) {
      return Reflect.set(target, key, value, target);
    },
  });
  return { view, keep: () => (probing = false) };
}

/**
 * The SDK v2 client, but an embedded request of an `input_required` result that no handler was
 * registered for goes to its fallback handler, as the same request sent on the wire does: a form
 * nobody here can fill is declined (server-asks.ts) and the call retried with that answer, as a
 * 2025 server's elicitation/create is, instead of the call failing. The SDK registers a handler
 * only for a declared capability, and mcpx declares only what it can answer.
 */
function answeringClient(Client: typeof V2Client): typeof V2Client {
  return class extends Client {
    protected override _getRequestHandler(method: string) {
      return super._getRequestHandler(method) ?? this.fallbackRequestHandler;
    }
  };
}

/** a connected SDK v2 client in the 2026 era, or why the server is to be spoken to in the 2025 era */
export type Negotiated =
  | { era: "modern"; client: V2Client; transport: Transport; discover: DiscoverResult }
  | { era: "legacy"; closed: boolean; error: unknown };

/**
 * Connects the SDK v2 client in the 2026 era: from a remembered (or pinned) verdict's advertisement
 * without a round trip, or by probing. A pin never falls back: its failure is thrown. Without a pin a
 * server that offers no 2026 revision gives "legacy" (with `closed` when the probe ended its connection).
 */
async function connectModern(
  transport: Transport,
  opts: { timeoutMs: number; prior?: DiscoverResult; pinned: boolean; http?: boolean; asking?: Asking },
): Promise<Negotiated> {
  const { Client: SdkClient, SdkError, SdkErrorCode, IssuerMismatchError } = await import("@modelcontextprotocol/client");
  const Client = answeringClient(SdkClient);
  const client = new Client(
    { name: "mcpx", version: VERSION },
    {
      capabilities: opts.asking?.capabilities ?? {},
      versionNegotiation: { mode: { pin: MODERN_REVISION }, probe: { timeoutMs: Math.min(PROBE_TIMEOUT_MS, opts.timeoutMs) } },
    },
  );
  opts.asking?.answerV2(client);
  const { view, keep } = probeView(transport);
  try {
    await client.connect(view as never, { timeout: opts.timeoutMs, ...(opts.prior ? { prior: { kind: "modern", discover: opts.prior } } : {}) });
  } catch (error) {
    keep();
    // the SDK v2's login refuses metadata whose issuer is not the URL it was looked up under, also where
    // the resource named no authorization server (a 2025-03-26 server); the 2025 handshake's provider
    // then decides, as for any 2025 server (lib/mcp/oauth/iss.ts metadataIssuerRefusal)
    const refused =
      (error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed) ||
      (opts.http === true && (httpRefusal(error) || error instanceof IssuerMismatchError));
    if (opts.pinned || !refused) throw error;
    return { era: "legacy", closed: /closed/.test(String((error as Error).message)), error };
  }
  keep();
  modernClients.add(client);
  return { era: "modern", client, transport, discover: client.getDiscoverResult()! };
}

/**
 * The 2026-07-28 era for an entry that pins it, was found to speak it, or has no verdict yet (a stdio
 * server: it is probed with server/discover on its own connection; docs/decisions/0020). Undefined:
 * the 2025 handshake as ever, with no probe. A "legacy" answer is a server that offered no 2026
 * revision; its verdict is remembered once its initialize succeeds.
 */
export async function negotiateEra(
  server: string,
  cfg: ServerConfig,
  transport: Transport,
  opts: Pick<PoolOptions, "eraDir" | "startTimeoutMs" | "startGate" | "authDir" | "log">,
  asking?: Asking,
): Promise<Negotiated | undefined> {
  const pin = cfg.protocolVersion;
  if (pin === "2025-11-25") return undefined;
  const remembered = opts.eraDir === undefined ? undefined : readVerdict(opts.eraDir, cfg);
  if (remembered?.era === "legacy" && pin === undefined) return undefined;
  const prior = remembered?.era === "modern" ? remembered.discover : undefined;
  if (cfg.kind === "http" && cfg.transport === "sse") return undefined;
  // over Streamable HTTP the probe has the SDK v2 transport (the 2026 headers are its): the 2025
  // handshake that may follow is the pool's own v1 transport, not yet started (no process to spare)
  const probing = cfg.kind === "http" ? await modernHttpTransport(cfg, opts) : transport;
  try {
    const negotiated = await connectModern(probing, {
      timeoutMs: opts.startTimeoutMs,
      pinned: pin === MODERN_REVISION,
      http: cfg.kind === "http",
      asking,
      ...(prior ? { prior } : {}),
    });
    if (negotiated.era === "legacy" && probing !== transport) await probing.close().catch(() => {});
    trace(`${server}: era ${negotiated.era}`);
    if (negotiated.era === "modern" && !prior && opts.eraDir) writeVerdict(opts.eraDir, cfg, { era: "modern", discover: negotiated.discover });
    return negotiated;
  } catch (err) {
    await probing.close().catch(() => {});
    const error = await startError(server, cfg, err, transport, { startTimeoutMs: opts.startTimeoutMs });
    await opts.startGate?.(cfg, "onError", { error });
    throw error;
  }
}
