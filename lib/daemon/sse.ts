// Server-sent events for /v1/events: the wire format (pure, unit-tested) and the query parsing that
// turns `kinds=`, `since=`, `Last-Event-ID` and the filters into a bus subscription, refusing
// anything it does not understand rather than ignoring it.

import type { SubscribeOptions, SubscriptionItem } from "../events/event.ts";
import { matchesKind, WHEN_KEYS } from "../events/match.ts";
import { EVENT_KIND_NAMES } from "../events/kinds.ts";
import { SettingsError } from "../settings/resolve.ts";

/**
 * How often an idle event stream gets a comment line, so proxies and clients can tell a quiet
 * stream from a dead one. Fixed by design (15 s); tests shorten it with KEEPALIVE_ENV.
 */
export const KEEPALIVE_MS = 15_000;

/** a test-only knob, not a setting (docs/daemon.md): the keep-alive interval in milliseconds */
const KEEPALIVE_ENV = "MCPX_DAEMON_KEEPALIVE_MS";

/** the keep-alive interval: KEEPALIVE_MS, or KEEPALIVE_ENV when set; a value that is not a whole number > 0 is an error */
export function keepAliveMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[KEEPALIVE_ENV];
  if (raw === undefined || raw === "") return KEEPALIVE_MS;
  if (!/^[1-9]\d*$/.test(raw))
    throw new SettingsError(
      `${KEEPALIVE_ENV}=${raw}: give the /v1/events keep-alive interval in milliseconds (a whole number > 0), or unset it for ${KEEPALIVE_MS}`,
    );
  return Number(raw);
}

/** one bus item as an SSE message: `id: SEQ`, `event: KIND`, `data: JSON`; a gap is `event: gap` with {from, to} */
export function sseMessage(item: SubscriptionItem): string {
  if (item.kind === "gap") return `id: ${item.seq}\nevent: gap\ndata: ${JSON.stringify({ from: item.from, to: item.to })}\n\n`;
  return `id: ${item.seq}\nevent: ${item.kind}\ndata: ${JSON.stringify(item)}\n\n`;
}

export const SSE_KEEPALIVE = ": keep-alive\n\n";

const QUERY_KEYS = ["kinds", "since", ...WHEN_KEYS];

/**
 * The subscription a request asks for. `Last-Event-ID` (what an EventSource sends when it
 * reconnects) wins over `since=`, so a reconnect resumes where it stopped rather than where the
 * original URL started. Neither = live events only.
 */
export function eventsQuery(url: URL, lastEventId: string | null): { ok: true; options: SubscribeOptions } | { ok: false; message: string } {
  for (const key of new Set(url.searchParams.keys())) {
    if (!QUERY_KEYS.includes(key)) return { ok: false, message: `unknown query parameter "${key}": /v1/events takes ${QUERY_KEYS.join(", ")}` };
  }
  const options: SubscribeOptions = {};
  const kinds = url.searchParams
    .getAll("kinds")
    .flatMap((k) => k.split(","))
    .map((k) => k.trim())
    .filter(Boolean);
  for (const k of kinds) {
    if (k !== "*" && !EVENT_KIND_NAMES.some((name) => matchesKind(k, name))) {
      return { ok: false, message: `kinds: "${k}" matches no event kind: use "*" or prefixes of ${EVENT_KIND_NAMES.join(", ")}` };
    }
  }
  if (kinds.length) options.kinds = kinds;
  const seq = (text: string, where: string) =>
    /^\d+$/.test(text.trim())
      ? Number(text.trim())
      : `${where} "${text}" is not a sequence number: give a whole number ≥ 0 (the id of the last event you saw; 0 replays everything retained)`;
  const since =
    lastEventId !== null && lastEventId.trim() !== ""
      ? seq(lastEventId, "Last-Event-ID")
      : url.searchParams.has("since")
        ? seq(url.searchParams.get("since")!, "since")
        : undefined;
  if (typeof since === "string") return { ok: false, message: since };
  if (since !== undefined) options.since = since;
  const filter: Record<string, string> = {};
  for (const key of WHEN_KEYS) {
    const value = url.searchParams.get(key);
    if (value !== null) filter[key] = value;
  }
  if (Object.keys(filter).length) options.filter = filter;
  return { ok: true, options };
}
