// GET /v1/events: the daemon's event bus as SSE. It replays from a seq, resumes from Last-Event-ID,
// reports a gap in-band once the asked-for seq has left the 1024-event history, delivers live
// events, and an observe hook in the daemon's config sees the very same events (same seq, same kind).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { HISTORY_SIZE } from "../../lib/events/bus.ts";
import { fakeServer, sandbox } from "./harness.ts";
import { writeConfig } from "./support.ts";
import { events, execEnvelope, sse, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
// one file per event, renamed to .json once complete: observers run concurrently, so appends to one file could interleave
const OBSERVED = join(sb.dir, "observed");
mkdirSync(OBSERVED);
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer() },
  // writes each payload it gets ({point, phase, hook, event}) to a file of its own
  hooks: [{ name: "seen", on: "script", phase: "observe", run: ["sh", "-c", 't=$(mktemp "$0/event.XXXXXX"); cat > "$t"; mv "$t" "$t.json"', OBSERVED] }],
});
let d: Daemon;

afterAll(stopDaemons);

beforeAll(async () => {
  d = await startDaemon(sb);
});

const lastSeq = async () => ((await (await d.fetch("/v1/health")).json()) as { events: { lastSeq: number } }).events.lastSeq;
const threeCalls = 'for (const m of ["a", "b", "c"]) await fake.echo({ message: m })';
const finishedFor = (runId: string) => (seen: Parameters<typeof events>[0]) =>
  events(seen).some((e) => e.event === "script.finished" && e.data.data.runId === runId);

describe("GET /v1/events", () => {
  let s0 = 0;
  let runId = "";
  let replayed: ReturnType<typeof events> = [];

  test("replays from a seq: since=N gives the events after N, each with id = its seq", async () => {
    s0 = await lastSeq();
    const env = await execEnvelope(d, { source: threeCalls });
    expect(env.ok).toBe(true);
    runId = env.runId;
    replayed = events(await sse(d, `/v1/events?since=${s0}&kinds=script,call`, finishedFor(runId)));
    const mine = replayed.filter((e) => e.data.data.runId === runId);
    expect(mine.map((e) => e.event)).toEqual(["script.started", "call.finished", "call.finished", "call.finished", "script.finished"]);
    for (const e of replayed) expect(e.id).toBe(e.data.seq);
    expect(replayed[0]!.id).toBeGreaterThan(s0);
    expect(replayed.map((e) => e.id)).toEqual([...replayed.map((e) => e.id)].sort((a, b) => a - b));
  });

  test("resumes with Last-Event-ID, which wins over the since= of the original URL", async () => {
    const second = replayed[1]!.id;
    const resumed = events(await sse(d, `/v1/events?since=${s0}&kinds=script,call`, finishedFor(runId), { "last-event-id": String(second) }));
    expect(resumed.map((e) => e.id)).toEqual(replayed.slice(2).map((e) => e.id));
  });

  test("an observe hook in the daemon's config sees the same events: same seq, same kind", async () => {
    const lines = () =>
      readdirSync(OBSERVED)
        .filter((f) => f.endsWith(".json"))
        .map((f) => readFileSync(join(OBSERVED, f), "utf8"))
        .filter((t) => t.trim())
        .map((t) => JSON.parse(t) as { point: string; event: { seq: number; kind: string; data: { runId?: string } } });
    for (let waited = 0; waited < 10_000 && !lines().some((l) => l.event.kind === "script.finished" && l.event.data.runId === runId); waited += 100)
      await Bun.sleep(100);
    const hookSaw = lines()
      .filter((l) => l.event.data.runId === runId)
      .map((l) => `${l.event.seq} ${l.event.kind}`)
      .sort();
    const streamSaw = replayed
      .filter((e) => e.event.startsWith("script.") && e.data.data.runId === runId)
      .map((e) => `${e.id} ${e.event}`)
      .sort();
    expect(hookSaw).toEqual(streamSaw);
    expect(hookSaw).toHaveLength(2);
  });

  test("without since it delivers live events, published after it subscribed", async () => {
    let started: Promise<{ runId: string }> | undefined;
    const seen = await sse(d, "/v1/events?kinds=script.finished", (msgs) => {
      // the stream's opening comment means the subscription exists: only now start the run
      started ??= execEnvelope(d, { source: "1" });
      return msgs.some((m) => m.event === "script.finished");
    });
    const { runId: live } = await started!;
    const evs = events(seen);
    expect(evs.map((e) => e.event)).toEqual(["script.finished"]);
    expect(evs[0]!.data.data.runId).toBe(live);
  });

  test(`reports a gap once the asked-for seq has left the ${HISTORY_SIZE}-event history`, async () => {
    // each call publishes one call.finished: this pushes the first events out of history
    const env = await execEnvelope(d, { source: `for (let i = 0; i < ${HISTORY_SIZE + 80}; i++) await fake.echo({ message: "x" + i })` });
    expect(env.ok).toBe(true);
    const seen = await sse(d, "/v1/events?since=0", (msgs) => events(msgs).length >= 2);
    const [gap, next] = events(seen);
    expect(gap!.event).toBe("gap");
    expect(gap!.data.from).toBe(1);
    expect(gap!.data.to).toBeGreaterThan(1);
    expect(gap!.id).toBe(gap!.data.to);
    // the history starts right after the gap
    expect(next!.id).toBe(gap!.data.to + 1);
  });

  test("a seq still in history replays without a gap", async () => {
    const last = await lastSeq();
    const seen = await sse(d, `/v1/events?since=${last - 5}`, (msgs) => events(msgs).length >= 5);
    const evs = events(seen);
    expect(evs.map((e) => e.event)).not.toContain("gap");
    expect(evs.map((e) => e.id)).toEqual([last - 4, last - 3, last - 2, last - 1, last]);
  });
});

describe.concurrent("GET /v1/events refuses what it does not understand", () => {
  for (const [query, says] of [
    ["kinds=calls", 'kinds: "calls" matches no event kind'],
    ["since=yesterday", 'since "yesterday" is not a sequence number'],
    ["from=3", 'unknown query parameter "from"'],
  ] as const) {
    test(`?${query} is a 400`, async () => {
      const res = await d.fetch(`/v1/events?${query}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(says);
    });
  }
});
