// The event bus (lib/events): the kinds table, seq and history, subscriptions (buffer, drops, gaps,
// replay from a seq, kind prefixes, filters, close) and synchronous listeners.

import { describe, expect, setSystemTime, test } from "bun:test";
import { EventBus, HISTORY_SIZE } from "../../lib/events/bus.ts";
import { type Event, type GapEvent, matchesFilter, type SubscriptionItem } from "../../lib/events/event.ts";
import { SUBSCRIBER_BUFFER, type Subscription } from "../../lib/events/subscription.ts";
import { matchesKind, whenMatches } from "../../lib/events/match.ts";
import { checkEventData, EVENT_KIND_NAMES, EVENT_KINDS, type EventKind, isEventKind } from "../../lib/events/kinds.ts";

/** one valid data object per kind, so every test can publish any kind */
const SAMPLE = {
  "server.started": { server: "alpha" },
  "server.stopped": { server: "alpha", reason: "idle" },
  "call.finished": { server: "alpha", tool: "echo", ok: true, durationMs: 3, argsHash: "abc", runId: "r1" },
  "hook.failed": { hook: "guard", point: "call", phase: "before", reason: "exit 1" },
  "script.started": { runId: "r1", script: "report.ts" },
  "script.finished": { runId: "r1", ok: true, exitCode: 0, durationMs: 12 },
  "tools.changed": { server: "alpha" },
} as const;

function quietBus(): { bus: EventBus; errors: unknown[] } {
  const errors: unknown[] = [];
  return { bus: new EventBus({ onListenerError: (e) => errors.push(e) }), errors };
}

function publishN(bus: EventBus, n: number, server = "alpha"): void {
  for (let i = 0; i < n; i++) bus.publish("tools.changed", { server });
}

const NOTHING = Symbol("nothing ready");

/**
 * The next item if one is ready now, else NOTHING. No timer decides: the bus is synchronous, so a
 * buffered item's next() is already resolved and wins the race against the already-resolved
 * sentinel listed after it. After NOTHING a next() is left pending: the caller closes the subscription.
 */
function ready(sub: Subscription): Promise<IteratorResult<SubscriptionItem> | typeof NOTHING> {
  return Promise.race([sub.next(), Promise.resolve(NOTHING)]);
}

/** reads exactly n items, failing (instead of hanging) if they are not already there */
async function take(sub: Subscription, n: number): Promise<SubscriptionItem[]> {
  const out: SubscriptionItem[] = [];
  for (let i = 0; i < n; i++) {
    const r = await ready(sub);
    if (r === NOTHING) throw new Error(`take: only ${out.length} of ${n} items were there`);
    if (r.done) throw new Error(`take: subscription ended after ${out.length} of ${n} items`);
    out.push(r.value);
  }
  return out;
}

/** one turn of the event loop: every pending microtask (all the bus's own work) has run */
const turn = () => new Promise<void>((r) => setImmediate(r));

/** everything ready to read right now, in order; closes the subscription */
async function drain(sub: Subscription): Promise<SubscriptionItem[]> {
  const out: SubscriptionItem[] = [];
  for (let r = await ready(sub); r !== NOTHING && !r.done; r = await ready(sub)) out.push(r.value);
  sub.close();
  return out;
}

/** true when nothing is ready to read right now; closes the subscription, so callers use idle() last */
async function idle(sub: Subscription): Promise<boolean> {
  const r = await ready(sub);
  sub.close();
  return r === NOTHING;
}

const seqs = (items: SubscriptionItem[]) => items.map((i) => i.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("kinds table", () => {
  test("declares exactly the kinds the design names, each with a description and a data shape", () => {
    expect<string[]>([...EVENT_KIND_NAMES].sort()).toEqual(
      ["call.finished", "hook.failed", "script.finished", "script.started", "server.started", "server.stopped", "tools.changed"].sort(),
    );
    for (const kind of EVENT_KIND_NAMES) {
      const spec = EVENT_KINDS[kind];
      expect(spec.description.length).toBeGreaterThan(10);
      expect(Object.keys(spec.data).length).toBeGreaterThan(0);
    }
  });

  test("data shapes are the ones in the brief", () => {
    expect(EVENT_KINDS["call.finished"].data).toEqual({
      server: "string",
      tool: "string",
      ok: "boolean",
      durationMs: "number",
      argsHash: "string",
      runId: "string?",
      // a call a hook made names the hooks that made it (lib/hooks/call-chain.ts)
      by: "string?",
    });
    expect(EVENT_KINDS["hook.failed"].data).toEqual({ hook: "string", point: "string", phase: "string", reason: "string", runId: "string?" });
    expect(EVENT_KINDS["script.finished"].data).toEqual({ runId: "string", ok: "boolean", exitCode: "number", durationMs: "number" });
    expect(EVENT_KINDS["server.stopped"].data).toEqual({ server: "string", reason: "string" });
  });

  test("every sample fits its kind, and checkEventData names what does not", () => {
    for (const kind of EVENT_KIND_NAMES) expect(checkEventData(kind, SAMPLE[kind])).toEqual([]);
    expect(checkEventData("call.finished", { server: "a", tool: "t", ok: true, durationMs: 1, argsHash: "h" })).toEqual([]); // runId optional
    expect(checkEventData("call.finished", { server: "a", tool: "t", ok: "yes", durationMs: 1 })).toEqual([
      "call.finished: ok must be a boolean, got string",
      "call.finished: missing argsHash (string)",
    ]);
    expect(checkEventData("server.started", { server: "a", extra: 1 })).toEqual(["server.started: unexpected field extra"]);
    expect(checkEventData("server.started", null)).toEqual(["server.started: data must be an object"]);
    expect(checkEventData("call.started", {})).toEqual(['unknown event kind "call.started"']);
  });

  test("isEventKind", () => {
    expect(isEventKind("call.finished")).toBe(true);
    expect(isEventKind("call")).toBe(false);
    expect(isEventKind("toString")).toBe(false);
  });
});

describe("matchesKind", () => {
  const cases: [string, string, boolean][] = [
    ["*", "call.finished", true],
    ["*", "server.started", true],
    ["call", "call.finished", true],
    ["call.", "call.finished", true],
    ["call.finished", "call.finished", true],
    ["call.fin", "call.finished", false],
    ["callx", "call.finished", false],
    ["call", "callx.finished", false],
    ["call.finished.more", "call.finished", false],
    ["server", "server.started", true],
    ["server", "server.stopped", true],
    ["server.start", "server.started", false],
    ["tools", "tools.changed", true],
    ["", "call.finished", false],
    [".", "call.finished", false],
  ];
  for (const [prefix, kind, want] of cases) {
    test(`${JSON.stringify(prefix)} ${want ? "matches" : "does not match"} ${kind}`, () => expect(matchesKind(prefix, kind)).toBe(want));
  }
});

describe("matchesFilter", () => {
  test("each given field must match; absent filter fields do not constrain", () => {
    const e = { server: "alpha", tool: "delete_file", session: "s1", uri: "file:///a" };
    expect(matchesFilter(undefined, e)).toBe(true);
    expect(matchesFilter({}, e)).toBe(true);
    expect(matchesFilter({ server: "alpha" }, e)).toBe(true);
    expect(matchesFilter({ server: "beta" }, e)).toBe(false);
    expect(matchesFilter({ server: "alpha", tool: "delete_file" }, e)).toBe(true);
    expect(matchesFilter({ server: "alpha", tool: "echo" }, e)).toBe(false);
    expect(matchesFilter({ session: "s1", uri: "file:///a" }, e)).toBe(true);
    expect(matchesFilter({ session: "s2" }, e)).toBe(false);
    expect(matchesFilter({ uri: "file:///b" }, e)).toBe(false);
  });

  test("filters match exactly as an observe hook's when: server, tool and uri are globs, session is exact", () => {
    const e = { server: "fs.local", tool: "delete_file", session: "s*", uri: "file:///w/a.txt" };
    expect(matchesFilter({ tool: "delete_*" }, e)).toBe(true);
    expect(matchesFilter({ tool: "*_file" }, e)).toBe(true);
    expect(matchesFilter({ tool: "*" }, e)).toBe(true);
    expect(matchesFilter({ tool: "read_*" }, e)).toBe(false);
    expect(matchesFilter({ server: "fs.*" }, e)).toBe(true);
    expect(matchesFilter({ server: "{fs.local,git}" }, e)).toBe(true);
    expect(matchesFilter({ server: "fsxlocal" }, e)).toBe(false);
    expect(matchesFilter({ uri: "file:///w/**" }, e)).toBe(true);
    expect(matchesFilter({ session: "s1" }, e)).toBe(false);
    expect(matchesFilter({ session: "s*" }, e)).toBe(true); // exact: the literal id "s*"
    for (const when of [{ tool: "delete_*" }, { server: "{fs.local,git}" }, { uri: "file:///w/**" }, { session: "s1" }]) {
      expect(matchesFilter(when, e)).toBe(whenMatches(when, e));
    }
  });

  test("a tool filter matches either spelling of the tool, as a hook's does", () => {
    expect(matchesFilter({ tool: "get_sum" }, { tool: "get-sum" })).toBe(true);
  });

  test("a field the event lacks fails a filter that names it, even with *", () => {
    expect(matchesFilter({ tool: "*" }, { server: "alpha" })).toBe(false);
    expect(matchesFilter({ session: "s1" }, { server: "alpha" })).toBe(false);
  });
});

describe("publish", () => {
  test("seq is monotonic from 1, time is ISO from the clock, data is copied and frozen", () => {
    let t = Date.parse("2026-01-02T03:04:05.000Z");
    const bus = new EventBus({
      now: () => {
        t += 1000;
        return new Date(t);
      },
    });
    expect(bus.lastSeq).toBe(0);
    const data = { server: "alpha" };
    const a = bus.publish("server.started", data);
    const b = bus.publish("tools.changed", { server: "alpha" });
    const c = bus.publish("server.stopped", { server: "alpha", reason: "shutdown" });
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 3]);
    expect(bus.lastSeq).toBe(3);
    expect(a.time).toBe("2026-01-02T03:04:06.000Z");
    expect(c.time).toBe("2026-01-02T03:04:08.000Z");
    expect(a.data).toEqual({ server: "alpha" });
    expect(a.data).not.toBe(data);
    data.server = "mutated";
    expect(a.data.server).toBe("alpha");
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.data)).toBe(true);
  });

  test("seq stays strictly increasing over many publishes of mixed kinds", () => {
    const bus = new EventBus();
    let prev = 0;
    for (let i = 0; i < 3000; i++) {
      const kind = EVENT_KIND_NAMES[i % EVENT_KIND_NAMES.length] as EventKind;
      const e = bus.publish(kind, SAMPLE[kind] as never);
      expect(e.seq).toBe(prev + 1);
      prev = e.seq;
    }
  });

  test("the default time is now, in ISO 8601", () => {
    setSystemTime(new Date("2026-03-04T05:06:07.089Z"));
    try {
      expect(new EventBus().publish("server.started", { server: "a" }).time).toBe("2026-03-04T05:06:07.089Z");
    } finally {
      setSystemTime();
    }
  });

  test("context: server/tool default from data, ctx overrides them, session/uri only from ctx", () => {
    const bus = new EventBus();
    const call = bus.publish("call.finished", SAMPLE["call.finished"]);
    expect(call.server).toBe("alpha");
    expect(call.tool).toBe("echo");
    expect("session" in call).toBe(false);
    expect("uri" in call).toBe(false);
    const script = bus.publish("script.started", SAMPLE["script.started"], { session: "s1", uri: "file:///x" });
    expect(script.session).toBe("s1");
    expect(script.uri).toBe("file:///x");
    expect("server" in script).toBe(false);
    const over = bus.publish("server.started", { server: "alpha" }, { server: "alpha#2" });
    expect(over.server).toBe("alpha#2");
    expect(over.data.server).toBe("alpha");
  });

  test("an unknown kind is refused (and gets no seq)", () => {
    const bus = new EventBus();
    expect(() => bus.publish("call.started" as EventKind, {} as never)).toThrow(/unknown event kind "call.started"/);
    expect(bus.lastSeq).toBe(0);
  });

  test("published(kind) counts per kind", () => {
    const bus = new EventBus();
    for (const kind of EVENT_KIND_NAMES) expect(bus.published(kind)).toBe(0);
    bus.publish("server.started", { server: "a" });
    bus.publish("server.started", { server: "b" });
    bus.publish("call.finished", SAMPLE["call.finished"]);
    expect(bus.published("server.started")).toBe(2);
    expect(bus.published("call.finished")).toBe(1);
    expect(bus.published("server.stopped")).toBe(0);
  });

  test("publish is synchronous and returns even when a subscriber never reads", () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    const r = bus.publish("server.started", { server: "a" });
    expect(r).not.toBeInstanceOf(Promise);
    publishN(bus, SUBSCRIBER_BUFFER * 4);
    expect(bus.lastSeq).toBe(SUBSCRIBER_BUFFER * 4 + 1);
    sub.close();
  });

  test("narrowing on kind narrows data (type level)", () => {
    const e: Event = new EventBus().publish("call.finished", SAMPLE["call.finished"]);
    if (e.kind === "call.finished") {
      const ok: boolean = e.data.ok;
      const ms: number = e.data.durationMs;
      const runId: string | undefined = e.data.runId;
      expect([ok, ms, runId]).toEqual([true, 3, "r1"]);
    }
    const bus = new EventBus();
    // @ts-expect-error missing reason
    expect(() => bus.publish("server.stopped", { server: "a" })).not.toThrow();
    // @ts-expect-error wrong type
    expect(() => bus.publish("script.finished", { runId: "r", ok: "yes", exitCode: 0, durationMs: 1 })).not.toThrow();
    // @ts-expect-error unknown kind
    expect(() => bus.publish("task.updated", {})).toThrow();
  });
});

describe("history", () => {
  test(`HISTORY_SIZE is 1024 and SUBSCRIBER_BUFFER is 256 (the design fixes both)`, () => {
    expect(HISTORY_SIZE).toBe(1024);
    expect(SUBSCRIBER_BUFFER).toBe(256);
  });

  test("retains everything below the cap", () => {
    const bus = new EventBus();
    expect(bus.history()).toEqual([]);
    expect(bus.oldestSeq).toBe(1);
    publishN(bus, 10);
    expect(seqs(bus.history())).toEqual(range(1, 10));
    expect(seqs(bus.history(7))).toEqual([8, 9, 10]);
    expect(bus.oldestSeq).toBe(1);
  });

  test("retains exactly the last 1024 once past the cap", () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE);
    expect(bus.history().length).toBe(HISTORY_SIZE);
    expect(bus.oldestSeq).toBe(1);
    publishN(bus, 1);
    expect(bus.history().length).toBe(HISTORY_SIZE);
    expect(bus.oldestSeq).toBe(2);
    publishN(bus, 2 * HISTORY_SIZE + 5);
    const h = bus.history();
    expect(h.length).toBe(HISTORY_SIZE);
    expect(seqs(h)).toEqual(range(bus.lastSeq - HISTORY_SIZE + 1, bus.lastSeq));
    expect(bus.oldestSeq).toBe(bus.lastSeq - HISTORY_SIZE + 1);
  });
});

describe("subscribe: live delivery and the per-subscriber buffer", () => {
  test("without since, only events published after subscribing", async () => {
    const bus = new EventBus();
    publishN(bus, 3);
    const sub = bus.subscribe();
    publishN(bus, 2);
    expect(seqs(await take(sub, 2))).toEqual([4, 5]);
    expect(await idle(sub)).toBe(true);
  });

  test("a reader already waiting gets the event as soon as it is published", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    const pending = sub.next();
    bus.publish("server.started", { server: "a" });
    const r = await pending;
    expect(r.done).toBe(false);
    expect(r.value?.seq).toBe(1);
    expect(sub.lastSeq).toBe(1);
    sub.close();
  });

  test("a full buffer drops new events and counts them, then reports them as one gap", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    publishN(bus, SUBSCRIBER_BUFFER + 44);
    expect(sub.dropped).toBe(44);
    const items = await take(sub, SUBSCRIBER_BUFFER + 1);
    expect(seqs(items.slice(0, SUBSCRIBER_BUFFER))).toEqual(range(1, SUBSCRIBER_BUFFER));
    expect(items[SUBSCRIBER_BUFFER]).toEqual({ kind: "gap", from: SUBSCRIBER_BUFFER + 1, to: SUBSCRIBER_BUFFER + 44, seq: SUBSCRIBER_BUFFER + 44 });
    // after draining, it receives again
    bus.publish("server.started", { server: "b" });
    const [next] = await take(sub, 1);
    expect(next?.seq).toBe(SUBSCRIBER_BUFFER + 45);
    expect(sub.dropped).toBe(44);
    expect(await idle(sub)).toBe(true);
  });

  test("the gap sits where the loss happened, before the next event that fit", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    publishN(bus, SUBSCRIBER_BUFFER + 10); // 1..256 kept, 257..266 dropped
    await take(sub, 5); // room for 5 more
    publishN(bus, 7); // 267..271 fit, 272..273 dropped
    expect(sub.dropped).toBe(12);
    const rest = await take(sub, SUBSCRIBER_BUFFER - 5 + 1 + 5 + 1);
    expect(seqs(rest.slice(0, SUBSCRIBER_BUFFER - 5))).toEqual(range(6, SUBSCRIBER_BUFFER));
    const tail = rest.slice(SUBSCRIBER_BUFFER - 5);
    expect(tail[0]).toEqual({ kind: "gap", from: 257, to: 266, seq: 266 });
    expect(seqs(tail.slice(1, 6))).toEqual(range(267, 271));
    expect(tail[6]).toEqual({ kind: "gap", from: 272, to: 273, seq: 273 });
    expect(await idle(sub)).toBe(true);
  });

  test("items come out in seq order, gaps included", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    publishN(bus, 3 * SUBSCRIBER_BUFFER);
    const items = await drain(sub);
    for (let i = 1; i < items.length; i++) expect((items[i] as SubscriptionItem).seq).toBeGreaterThan((items[i - 1] as SubscriptionItem).seq);
    expect(items.length).toBe(SUBSCRIBER_BUFFER + 1);
  });

  test("one stalled subscriber does not cost another anything", async () => {
    const bus = new EventBus();
    const stalled = bus.subscribe();
    const reader = bus.subscribe();
    const got: number[] = [];
    const loop = (async () => {
      for await (const item of reader) {
        got.push(item.seq);
        if (item.seq === 1000) break;
      }
    })();
    for (let i = 0; i < 1000; i++) {
      bus.publish("tools.changed", { server: "a" });
      if (i % 100 === 0) await turn();
    }
    await loop;
    expect(got).toEqual(range(1, 1000)); // it kept up (never 256 behind), so it lost nothing
    expect(reader.dropped).toBe(0);
    expect(stalled.dropped).toBe(1000 - SUBSCRIBER_BUFFER);
    stalled.close();
  });

  test("events a subscriber filters out never use its buffer", () => {
    const bus = new EventBus();
    const sub = bus.subscribe({ kinds: ["call"] });
    publishN(bus, 5 * SUBSCRIBER_BUFFER);
    expect(sub.dropped).toBe(0);
    sub.close();
  });
});

describe("subscribe: since and gaps", () => {
  test("replays retained events with seq > since, then live ones", async () => {
    const bus = new EventBus();
    publishN(bus, 5);
    const sub = bus.subscribe({ since: 2 });
    expect(seqs(await take(sub, 3))).toEqual([3, 4, 5]);
    publishN(bus, 1);
    expect(seqs(await take(sub, 1))).toEqual([6]);
    expect(await idle(sub)).toBe(true);
  });

  test("since 0 replays everything retained; since = lastSeq or beyond replays nothing", async () => {
    const bus = new EventBus();
    publishN(bus, 4);
    const all = bus.subscribe({ since: 0 });
    expect(seqs(await take(all, 4))).toEqual([1, 2, 3, 4]);
    expect(await idle(all)).toBe(true);
    const caughtUp = bus.subscribe({ since: 4 });
    expect(await idle(caughtUp)).toBe(true);
    const ahead = bus.subscribe({ since: 99 });
    expect(await idle(ahead)).toBe(true);
  });

  test("replay on an empty bus is nothing, and no gap", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe({ since: 0 });
    expect(await idle(sub)).toBe(true);
  });

  test("events published between subscribe and the first read come after the replay, once", async () => {
    const bus = new EventBus();
    publishN(bus, 3);
    const sub = bus.subscribe({ since: 1 });
    publishN(bus, 2);
    expect(seqs(await take(sub, 4))).toEqual([2, 3, 4, 5]);
    expect(await idle(sub)).toBe(true);
  });

  test("replay does not count against the subscriber buffer", async () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE);
    const sub = bus.subscribe({ since: 0 });
    publishN(bus, SUBSCRIBER_BUFFER);
    expect(sub.dropped).toBe(0);
    const items = await take(sub, HISTORY_SIZE + SUBSCRIBER_BUFFER);
    expect(seqs(items)).toEqual(range(1, HISTORY_SIZE + SUBSCRIBER_BUFFER));
    sub.close();
  });

  test("replay honours kinds and filter", async () => {
    const bus = new EventBus();
    bus.publish("server.started", { server: "alpha" });
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "alpha" });
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "beta" });
    bus.publish("tools.changed", { server: "alpha" });
    const sub = bus.subscribe({ since: 0, kinds: ["call"], filter: { server: "alpha" } });
    expect(seqs(await take(sub, 1))).toEqual([2]);
    expect(await idle(sub)).toBe(true);
  });

  test("since older than the oldest retained event yields a gap first, naming the lost seqs", async () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE + 76); // 1..76 gone, 77..1100 retained
    const sub = bus.subscribe({ since: 10 });
    const [first, ...rest] = await take(sub, 1 + HISTORY_SIZE);
    expect(first).toEqual({ kind: "gap", from: 11, to: 76, seq: 76 });
    expect(seqs(rest)).toEqual(range(77, HISTORY_SIZE + 76));
    expect(sub.lastSeq).toBe(HISTORY_SIZE + 76);
    expect(await idle(sub)).toBe(true);
  });

  test("since 0 after history rolled over: gap from 1", async () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE + 1);
    const sub = bus.subscribe({ since: 0 });
    const [first] = await take(sub, 1);
    expect(first).toEqual({ kind: "gap", from: 1, to: 1, seq: 1 });
    sub.close();
  });

  test("since exactly oldest - 1 is no gap", async () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE + 5);
    const sub = bus.subscribe({ since: bus.oldestSeq - 1 });
    const [first] = await take(sub, 1);
    expect(first?.kind).toBe("tools.changed");
    expect(first?.seq).toBe(6);
    sub.close();
  });

  test("the gap is reported even to a filtered subscriber (what was lost is unknown)", async () => {
    const bus = new EventBus();
    publishN(bus, HISTORY_SIZE + 3);
    const sub = bus.subscribe({ since: 0, kinds: ["call"] });
    expect(await take(sub, 1)).toEqual([{ kind: "gap", from: 1, to: 3, seq: 3 } satisfies GapEvent]);
    expect(await idle(sub)).toBe(true);
  });

  test("resubscribing from the last delivered seq recovers dropped events still in history", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    publishN(bus, SUBSCRIBER_BUFFER + 20);
    const items = await take(sub, SUBSCRIBER_BUFFER + 1);
    const g = items.at(-1) as GapEvent;
    expect(g.kind).toBe("gap");
    sub.close();
    const again = bus.subscribe({ since: g.from - 1 });
    expect(seqs(await take(again, 20))).toEqual(range(g.from, g.to));
    again.close();
  });

  test("since must be a non-negative integer", () => {
    const bus = new EventBus();
    expect(() => bus.subscribe({ since: -1 })).toThrow(RangeError);
    expect(() => bus.subscribe({ since: 1.5 })).toThrow(RangeError);
    expect(() => bus.subscribe({ since: Number.NaN })).toThrow(RangeError);
    expect(bus.subscriberCount).toBe(0);
  });
});

describe("subscribe: kinds and filter", () => {
  async function kindsSeen(kinds: string[] | undefined): Promise<string[]> {
    const bus = new EventBus();
    const sub = bus.subscribe(kinds ? { kinds } : {});
    for (const kind of EVENT_KIND_NAMES) bus.publish(kind, SAMPLE[kind] as never);
    return (await drain(sub)).map((item) => item.kind).sort();
  }

  test("prefixes on dot boundaries", async () => {
    expect(await kindsSeen(["call"])).toEqual(["call.finished"]);
    expect(await kindsSeen(["server"])).toEqual(["server.started", "server.stopped"]);
    expect(await kindsSeen(["server.stopped"])).toEqual(["server.stopped"]);
    expect(await kindsSeen(["script", "hook"])).toEqual(["hook.failed", "script.finished", "script.started"]);
    expect(await kindsSeen(["serv"])).toEqual([]);
  });

  test('"*", [] and no kinds all mean every kind', async () => {
    const all = [...EVENT_KIND_NAMES].sort();
    expect(await kindsSeen(["*"])).toEqual(all);
    expect(await kindsSeen([])).toEqual(all);
    expect(await kindsSeen(undefined)).toEqual(all);
  });

  test("filter by server and tool (server/tool taken from data)", async () => {
    const bus = new EventBus();
    const byServer = bus.subscribe({ filter: { server: "beta" } });
    const byTool = bus.subscribe({ filter: { tool: "delete_*" } });
    const both = bus.subscribe({ kinds: ["call"], filter: { server: "alpha", tool: "echo" } });
    bus.publish("server.started", { server: "alpha" }); // 1
    bus.publish("server.started", { server: "beta" }); // 2
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "alpha", tool: "echo" }); // 3
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "beta", tool: "delete_file" }); // 4
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "alpha", tool: "delete_dir" }); // 5
    bus.publish("tools.changed", { server: "beta" }); // 6
    bus.publish("script.started", SAMPLE["script.started"]); // 7: no server, no tool
    expect(seqs(await take(byServer, 3))).toEqual([2, 4, 6]);
    expect(seqs(await take(byTool, 2))).toEqual([4, 5]);
    expect(seqs(await take(both, 1))).toEqual([3]);
    for (const s of [byServer, byTool, both]) expect(await idle(s)).toBe(true);
  });

  test("filter by session and uri (from the publish context)", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe({ filter: { session: "s1", uri: "file:///a" } });
    bus.publish("script.started", SAMPLE["script.started"], { session: "s1", uri: "file:///a" }); // 1
    bus.publish("script.started", SAMPLE["script.started"], { session: "s1", uri: "file:///b" }); // 2
    bus.publish("script.started", SAMPLE["script.started"], { session: "s2", uri: "file:///a" }); // 3
    bus.publish("script.started", SAMPLE["script.started"]); // 4
    expect(seqs(await take(sub, 1))).toEqual([1]);
    expect(await idle(sub)).toBe(true);
  });

  test("the options given are copied, so mutating them later changes nothing", async () => {
    const bus = new EventBus();
    const kinds = ["call"];
    const filter = { server: "alpha" };
    const sub = bus.subscribe({ kinds, filter });
    kinds.push("*");
    filter.server = "beta";
    bus.publish("server.started", { server: "alpha" });
    bus.publish("call.finished", { ...SAMPLE["call.finished"], server: "beta" });
    bus.publish("call.finished", SAMPLE["call.finished"]);
    expect(seqs(await take(sub, 1))).toEqual([3]);
    expect(await idle(sub)).toBe(true);
  });
});

describe("close", () => {
  test("close() resolves a pending next() as done and detaches from the bus", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    expect(bus.subscriberCount).toBe(1);
    const pending = sub.next();
    sub.close();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(sub.closed).toBe(true);
    expect(bus.subscriberCount).toBe(0);
    bus.publish("server.started", { server: "a" });
    expect(await sub.next()).toEqual({ value: undefined, done: true });
    sub.close(); // idempotent
  });

  test("close() ends a for-await loop, discarding what was buffered", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe({ since: 0 });
    publishN(bus, 3);
    const got: number[] = [];
    for await (const item of sub) {
      got.push(item.seq);
      if (item.seq === 1) sub.close();
    }
    expect(got).toEqual([1]);
  });

  test("a for-await loop waiting for events ends when the subscription is closed", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    const got: number[] = [];
    const loop = (async () => {
      for await (const item of sub) got.push(item.seq);
      return "ended";
    })();
    bus.publish("server.started", { server: "a" });
    await turn(); // the loop has taken the event and waits for the next
    expect(got).toEqual([1]);
    sub.close();
    expect(await loop).toBe("ended");
    expect(got).toEqual([1]);
  });

  test("breaking out of for-await closes the subscription", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe({ since: 0 });
    publishN(bus, 5);
    for await (const item of sub) if (item.seq === 2) break;
    expect(sub.closed).toBe(true);
    expect(bus.subscriberCount).toBe(0);
  });

  test("bus.close() closes every subscription and removes every listener", async () => {
    const bus = new EventBus();
    const a = bus.subscribe();
    const b = bus.subscribe({ kinds: ["call"] });
    const pa = a.next();
    let calls = 0;
    bus.on(() => calls++);
    bus.close();
    expect(await pa).toEqual({ value: undefined, done: true });
    expect(b.closed).toBe(true);
    expect(bus.subscriberCount).toBe(0);
    expect(bus.listenerCount).toBe(0);
    bus.publish("server.started", { server: "a" });
    expect(calls).toBe(0);
    expect(bus.lastSeq).toBe(1); // the bus itself still works
  });

  test("two next() calls pending at once is a caller error, not a silent loss", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    const first = sub.next();
    await expect(sub.next()).rejects.toThrow(/another next\(\) is pending/);
    bus.publish("server.started", { server: "a" });
    expect((await first).value?.seq).toBe(1);
    sub.close();
  });
});

describe("listeners", () => {
  test("called synchronously, in registration order, for every event", () => {
    const bus = new EventBus();
    const calls: string[] = [];
    bus.on((e) => calls.push(`a${e.seq}`));
    bus.on((e) => calls.push(`b${e.seq}`));
    bus.publish("server.started", { server: "x" });
    expect(calls).toEqual(["a1", "b1"]); // already, before any await
    bus.publish("tools.changed", { server: "x" });
    expect(calls).toEqual(["a1", "b1", "a2", "b2"]);
  });

  test("the function on() returns removes that listener only", () => {
    const bus = new EventBus();
    const calls: number[] = [];
    const listener = (e: Event) => calls.push(e.seq);
    const off1 = bus.on(listener);
    bus.on(listener);
    expect(bus.listenerCount).toBe(2);
    off1();
    off1(); // idempotent
    expect(bus.listenerCount).toBe(1);
    bus.publish("server.started", { server: "x" });
    expect(calls).toEqual([1]);
  });

  test("a throwing listener is isolated: publish returns, others and subscribers still get the event", async () => {
    const { bus, errors } = quietBus();
    const sub = bus.subscribe();
    const seen: number[] = [];
    bus.on(() => {
      throw new Error("boom");
    });
    bus.on((e) => seen.push(e.seq));
    const e = bus.publish("server.started", { server: "x" });
    expect(e.seq).toBe(1);
    expect(seen).toEqual([1]);
    expect(errors.map((x) => (x as Error).message)).toEqual(["boom"]);
    expect(bus.listenerErrors).toBe(1);
    expect(seqs(await take(sub, 1))).toEqual([1]);
    bus.publish("server.started", { server: "y" });
    expect(seen).toEqual([1, 2]);
    expect(bus.listenerErrors).toBe(2);
    sub.close();
  });

  test("an async listener that rejects is reported, not an unhandled rejection", async () => {
    const { bus, errors } = quietBus();
    bus.on(async () => {
      throw new Error("later");
    });
    bus.publish("server.started", { server: "x" });
    await turn();
    expect(errors.map((x) => (x as Error).message)).toEqual(["later"]);
    expect(bus.listenerErrors).toBe(1);
  });

  test("a slow async listener does not delay publish", () => {
    const bus = new EventBus();
    let called = false;
    let finish!: () => void;
    // a listener that has not finished until the test says so
    bus.on(() => {
      called = true;
      return new Promise<void>((r) => {
        finish = r;
      });
    });
    // publish is synchronous: it returns here, with the listener called and still unfinished
    expect(bus.publish("server.started", { server: "x" }).seq).toBe(1);
    expect(called).toBe(true);
    finish();
  });

  test("a reporter that throws does not break publish either", () => {
    const bus = new EventBus({
      onListenerError: () => {
        throw new Error("reporter");
      },
    });
    bus.on(() => {
      throw new Error("boom");
    });
    expect(bus.publish("server.started", { server: "x" }).seq).toBe(1);
    expect(bus.listenerErrors).toBe(1);
  });

  test("by default a throwing listener is reported on stderr, naming the event", () => {
    const bus = new EventBus();
    bus.on(() => {
      throw new Error("boom");
    });
    const written: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      bus.publish("tools.changed", { server: "x" });
    } finally {
      process.stderr.write = original;
    }
    expect(written.join("")).toContain("event listener failed on tools.changed #1: boom");
  });

  test("a listener that publishes cannot reorder what subscribers see", async () => {
    const bus = new EventBus();
    const sub = bus.subscribe();
    bus.on((e) => {
      if (e.kind === "script.finished") bus.publish("server.stopped", { server: "a", reason: "run ended" });
    });
    bus.publish("script.finished", SAMPLE["script.finished"]);
    const items = await take(sub, 2);
    expect(items.map((i) => [i.seq, i.kind])).toEqual([
      [1, "script.finished"],
      [2, "server.stopped"],
    ]);
    sub.close();
  });
});
