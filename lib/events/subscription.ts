// One reader of the bus: replayed events first, then live ones from a bounded buffer that drops
// rather than blocks (the drops counted, and reported in-band as a gap). EventBus.subscribe makes
// it and EventBus.publish hands it each event; it never blocks the publisher.

import { type Event, type EventFilter, type GapEvent, matchesFilter, matchesKinds, type SubscriptionItem } from "./event.ts";

/**
 * How many live events one subscriber may have waiting before new ones are dropped for it (and
 * counted in Subscription.dropped). Fixed by design, so a slow subscriber costs a known amount of
 * memory; change it only together with the design doc and the tests that pin it. Replay out
 * of history on subscribe does not count against it.
 */
export const SUBSCRIBER_BUFFER = 256;

/**
 * One reader of the bus. Iterate it with for-await; it yields replayed events first (and a gap if
 * `since` was older than history), then live ones. Leaving the loop (break/return/throw) closes it.
 */
export class Subscription implements AsyncIterable<SubscriptionItem> {
  /** gap (if any) and replayed events, read by cursor; not bounded by SUBSCRIBER_BUFFER */
  private replay: SubscriptionItem[];
  private replayAt = 0;
  /** live events (and gap markers for drops), at most SUBSCRIBER_BUFFER events */
  private live: SubscriptionItem[] = [];
  private liveEvents = 0;
  /** events dropped since the last one that fit: becomes a gap in front of the next one */
  private pendingGap: { from: number; to: number } | undefined;
  private waiting: ((r: IteratorResult<SubscriptionItem>) => void) | undefined;
  private isClosed = false;
  private droppedCount = 0;
  private last = 0;

  /** @internal created by EventBus.subscribe */
  constructor(
    private readonly detach: (s: Subscription) => void,
    private readonly kinds: readonly string[] | undefined,
    private readonly filter: EventFilter | undefined,
    replay: SubscriptionItem[],
  ) {
    this.replay = replay;
  }

  /** live events lost because this subscriber's buffer was full */
  get dropped(): number {
    return this.droppedCount;
  }

  /** the seq of the last event (or gap) this subscription yielded; 0 before any */
  get lastSeq(): number {
    return this.last;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** whether an event is one this subscription wants (kinds and filter) */
  matches(event: Event): boolean {
    return matchesKinds(this.kinds, event.kind) && matchesFilter(this.filter, event);
  }

  /** @internal called by EventBus.publish; never blocks, never throws */
  deliver(event: Event): void {
    if (this.isClosed || !this.matches(event)) return;
    if (this.waiting) {
      // a waiting reader means everything before was consumed, gaps included
      const w = this.waiting;
      this.waiting = undefined;
      this.last = event.seq;
      w({ value: event, done: false });
      return;
    }
    if (this.liveEvents >= SUBSCRIBER_BUFFER) {
      this.droppedCount++;
      if (this.pendingGap) this.pendingGap.to = event.seq;
      else this.pendingGap = { from: event.seq, to: event.seq };
      return;
    }
    if (this.pendingGap) {
      this.live.push(gap(this.pendingGap.from, this.pendingGap.to));
      this.pendingGap = undefined;
    }
    this.live.push(event);
    this.liveEvents++;
  }

  /** ends the iteration (a pending next() resolves done), discards what is buffered, detaches from the bus */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.replay = [];
    this.live = [];
    this.liveEvents = 0;
    this.pendingGap = undefined;
    this.detach(this);
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  /** the next item, or done once closed */
  next(): Promise<IteratorResult<SubscriptionItem>> {
    const item = this.take();
    if (item) {
      this.last = item.seq;
      return Promise.resolve({ value: item, done: false });
    }
    if (this.isClosed) return Promise.resolve({ value: undefined, done: true });
    if (this.waiting) return Promise.reject(new Error("Subscription: next() called while another next() is pending"));
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private take(): SubscriptionItem | undefined {
    if (this.isClosed) return undefined;
    if (this.replayAt < this.replay.length) {
      const item = this.replay[this.replayAt++];
      if (this.replayAt === this.replay.length) {
        this.replay = [];
        this.replayAt = 0;
      }
      return item;
    }
    const item = this.live.shift();
    if (item) {
      if (item.kind !== "gap") this.liveEvents--;
      return item;
    }
    if (this.pendingGap) {
      const g = gap(this.pendingGap.from, this.pendingGap.to);
      this.pendingGap = undefined;
      return g;
    }
    return undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionItem> {
    return {
      next: () => this.next(),
      return: (value?: unknown) => {
        this.close();
        return Promise.resolve({ value: value as SubscriptionItem, done: true });
      },
    };
  }
}

/** the gap of the events with seqs from..to, as a subscription reports it */
export function gap(from: number, to: number): GapEvent {
  return { kind: "gap", from, to, seq: to };
}
