// The shapes of what the bus publishes and how a reader asks for it: an event (its seq, kind, time,
// data and where it happened), the gap a subscription reports in-band, and the filter both a
// subscription and an observe hook's `when` match on.

import { matchesKind, whenMatches } from "./match.ts";
import type { EventData, EventKind } from "./kinds.ts";

/** what publish may say about where an event happened, beyond its data; filters match on these */
export interface EventContext {
  server?: string;
  tool?: string;
  session?: string;
  uri?: string;
}

export interface EventBase<K extends EventKind> extends EventContext {
  /** monotonic per bus, starting at 1, never reused */
  seq: number;
  kind: K;
  /** ISO 8601, when it was published */
  time: string;
  data: EventData<K>;
}

/** one published event; narrowing on `kind` narrows `data` */
export type Event<K extends EventKind = EventKind> = { [P in K]: Readonly<EventBase<P>> }[K];

/**
 * In-band notice that a subscription lost events: matching events with seqs in from..to (inclusive)
 * were not delivered — either they fell out of history before a `since` replay could reach them, or
 * the subscriber's buffer was full when they were published. `seq` equals `to`, so a reader that
 * tracks "last seq seen" stays monotonic. Events still in history can be fetched by subscribing
 * again with `since: from - 1`.
 */
export interface GapEvent {
  kind: "gap";
  from: number;
  to: number;
  seq: number;
}

export type SubscriptionItem = Event | GapEvent;

export interface EventFilter extends EventContext {}

export interface SubscribeOptions {
  /** kind prefixes on dot boundaries ("call" matches "call.finished"); "*" matches all; absent or empty = all */
  kinds?: readonly string[];
  /** replay retained events with seq > since before live ones; 0 replays everything retained */
  since?: number;
  /** every field given must equal the event's (server and tool may be globs with "*") */
  filter?: EventFilter;
}

export type EventListener = (event: Event) => unknown;

/** whether an event passes a filter: the one matcher an observe hook's `when` uses (events/match.ts) */
export function matchesFilter(filter: EventFilter | undefined, event: EventContext): boolean {
  return !filter || whenMatches(filter, event);
}

/** whether an event's kind is one of the kind prefixes asked for (none: every kind) */
export function matchesKinds(kinds: readonly string[] | undefined, kind: string): boolean {
  if (!kinds || kinds.length === 0) return true;
  return kinds.some((prefix) => matchesKind(prefix, kind));
}
