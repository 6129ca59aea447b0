// The event bus: every kind in kinds.ts is published here, with a monotonic seq, and read three ways —
// the retained history (the last HISTORY_SIZE events), subscriptions (async iterables with a bounded
// per-subscriber buffer that drops rather than blocks, resumable from a seq), and synchronous
// in-process listeners (what observe hooks hang off). Publishing never awaits and never throws
// because of a reader: a slow subscriber loses events (counted, and reported in-band as a gap), a
// throwing listener is reported and skipped. What an event is: event.ts; one subscriber: subscription.ts.

import { type EventData, type EventKind, isEventKind } from "./kinds.ts";
import {
  type Event,
  type EventBase,
  type EventContext,
  type EventListener,
  matchesFilter,
  matchesKinds,
  type SubscribeOptions,
  type SubscriptionItem,
} from "./event.ts";
import { gap, Subscription } from "./subscription.ts";

/**
 * How many events the bus retains for replay (subscribe-from-seq). Fixed by design (docs/daemon.md
 * promises it); change it only together with that doc and the tests that pin it, never from a call
 * site. A subscriber that falls further behind than this gets a gap.
 */
export const HISTORY_SIZE = 1024;

export interface EventBusOptions {
  /** the clock for Event.time (tests) */
  now?: () => Date;
  /** where a throwing listener is reported; default: a line on stderr */
  onListenerError?: (error: unknown, event: Event) => void;
}

export class EventBus {
  /** ring buffer of the last HISTORY_SIZE events */
  private ring: (Event | undefined)[] = new Array(HISTORY_SIZE);
  private ringStart = 0;
  private ringLength = 0;
  private seqNow = 0;
  private readonly subscriptions = new Set<Subscription>();
  private readonly listeners = new Set<EventListener>();
  private readonly counts = new Map<EventKind, number>();
  private listenerErrorCount = 0;
  /** the clock tests set (EventBusOptions.now); undefined: the system clock, read as a number */
  private readonly now: (() => Date) | undefined;
  private readonly onListenerError: (error: unknown, event: Event) => void;

  constructor(options: EventBusOptions = {}) {
    this.now = options.now;
    this.onListenerError =
      options.onListenerError ??
      ((error, event) => {
        const message = error instanceof Error ? error.message : String(error);
        process.stderr.write(`mcpx: event listener failed on ${event.kind} #${event.seq}: ${message}\n`);
      });
  }

  /**
   * Publishes one event and returns it. Synchronous: the event is retained, handed to every matching
   * subscription (dropped for those whose buffer is full) and then to every listener. Server and
   * tool default to data.server / data.tool when the context does not give them, so filters work
   * on call.finished or server.started without repeating them. Throws only for a kind not in
   * EVENT_KINDS (a programming error; the types already refuse it).
   */
  publish<K extends EventKind>(kind: K, data: EventData<K>, ctx: EventContext = {}): Event<K> {
    if (!isEventKind(kind)) throw new TypeError(`EventBus.publish: unknown event kind "${kind}" (declare it in lib/events/kinds.ts)`);
    const d = data as Record<string, unknown>;
    // the clock is read now, its text made when first read: most events (a call.finished per call) are never serialised
    // (a number, not a Date: an event's Date is made only with its text)
    const at = this.now ? this.now() : Date.now();
    let iso: string | undefined;
    const base: EventBase<K> = {
      seq: ++this.seqNow,
      kind,
      get time() {
        iso ??= (typeof at === "number" ? new Date(at) : at).toISOString();
        return iso;
      },
      data: frozenCopy(data),
    };
    const server = ctx.server ?? (typeof d.server === "string" ? d.server : undefined);
    const tool = ctx.tool ?? (typeof d.tool === "string" ? d.tool : undefined);
    if (server !== undefined) base.server = server;
    if (tool !== undefined) base.tool = tool;
    if (ctx.session !== undefined) base.session = ctx.session;
    if (ctx.uri !== undefined) base.uri = ctx.uri;
    const typed = Object.freeze(base) as Event<K>;
    const event = typed as unknown as Event; // one member of the union, for the readers below

    this.retain(event);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    // subscribers first, so a listener that publishes cannot reorder what subscribers see
    for (const sub of this.subscriptions) sub.deliver(event);
    for (const listener of this.listeners) {
      try {
        const r = listener(event);
        if (r && typeof (r as PromiseLike<unknown>).then === "function") {
          (r as PromiseLike<unknown>).then(undefined, (error: unknown) => this.listenerFailed(error, event));
        }
      } catch (error) {
        this.listenerFailed(error, event);
      }
    }
    return typed;
  }

  /**
   * Reads the bus. Without `since`, only events published from now on; with it, the retained events
   * with seq > since first (preceded by a gap if some were already gone), then live ones.
   */
  subscribe(options: SubscribeOptions = {}): Subscription {
    const { kinds, since, filter } = options;
    const replay: SubscriptionItem[] = [];
    if (since !== undefined) {
      if (!Number.isInteger(since) || since < 0) throw new RangeError(`EventBus.subscribe: since must be a non-negative integer, got ${since}`);
      const oldest = this.oldestSeq;
      if (since + 1 < oldest) replay.push(gap(since + 1, oldest - 1));
      const wanted = (e: Event) => matchesKinds(kinds, e.kind) && matchesFilter(filter, e);
      for (const e of this.history(since)) if (wanted(e)) replay.push(e);
    }
    const sub = new Subscription((s) => this.subscriptions.delete(s), kinds ? [...kinds] : undefined, filter ? { ...filter } : undefined, replay);
    this.subscriptions.add(sub);
    return sub;
  }

  /** adds a synchronous in-process listener for every event; returns the function that removes it */
  on(listener: EventListener): () => void {
    // wrapped so the same function can be added twice and removed once per registration
    const entry: EventListener = (e) => listener(e);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** how many events of this kind were published on this bus */
  published(kind: EventKind): number {
    return this.counts.get(kind) ?? 0;
  }

  /** the retained events with seq > since (all retained when since is absent), oldest first */
  history(since = 0): Event[] {
    const out: Event[] = [];
    for (let i = 0; i < this.ringLength; i++) {
      const e = this.ring[(this.ringStart + i) % HISTORY_SIZE];
      if (e && e.seq > since) out.push(e);
    }
    return out;
  }

  /** the seq of the last event published; 0 before any */
  get lastSeq(): number {
    return this.seqNow;
  }

  /** the seq of the oldest retained event; lastSeq + 1 when nothing is retained */
  get oldestSeq(): number {
    return this.ringLength === 0 ? this.seqNow + 1 : (this.ring[this.ringStart] as Event).seq;
  }

  get subscriberCount(): number {
    return this.subscriptions.size;
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** how many times a listener threw (or rejected) */
  get listenerErrors(): number {
    return this.listenerErrorCount;
  }

  /** closes every subscription and removes every listener (shutdown); history and counters stay */
  close(): void {
    for (const sub of [...this.subscriptions]) sub.close();
    this.listeners.clear();
  }

  private retain(event: Event): void {
    if (this.ringLength < HISTORY_SIZE) {
      this.ring[(this.ringStart + this.ringLength) % HISTORY_SIZE] = event;
      this.ringLength++;
    } else {
      this.ring[this.ringStart] = event;
      this.ringStart = (this.ringStart + 1) % HISTORY_SIZE;
    }
  }

  private listenerFailed(error: unknown, event: Event): void {
    this.listenerErrorCount++;
    try {
      this.onListenerError(error, event);
    } catch {
      // the reporter itself failing must not break publish either
    }
  }
}

/**
 * The event's data as readers get it: a copy, frozen, so a publisher cannot change it afterwards. Data
 * the publisher froze itself is taken as it is, which keeps its lazy getters lazy (a call's argsHash
 * is computed only when someone reads it: lib/exec/gated-call.ts).
 */
function frozenCopy<T extends object>(data: T): T {
  return Object.isFrozen(data) ? data : Object.freeze({ ...data });
}
