// Runs, the daemon's (and mcpx serve's) runs in flight: at most max scripts at once (daemon.maxRuns),
// the next refused at once with words naming the setting; a slot is free again once its run is done
// (once, however often done is called); a /v1/call (track) is cancelled with the rest but takes no slot.
// Draining refuses new runs and calls, and waits for the runs in flight, at most for its grace; readiness
// (lib/daemon/readiness.ts) is red while draining or while a server is not up.

import { expect, test } from "bun:test";
import { readiness } from "../../lib/daemon/readiness.ts";
import { Runs, type RunHandle } from "../../lib/daemon/runs.ts";

const handle = (r: ReturnType<Runs["start"] | Runs["track"]>): RunHandle => {
  if ("busy" in r) throw new Error(`refused: ${r.busy}`);
  return r;
};

test("the run past max is refused naming daemon.maxRuns, and a slot is free again once a run is done", () => {
  const runs = new Runs(2);
  const a = handle(runs.start());
  handle(runs.start());
  const refused = runs.start();
  expect("busy" in refused && refused.busy).toContain("daemon.maxRuns (2)");
  // a done called twice frees one slot, not two (a double free would let a third in below)
  a.done();
  a.done();
  handle(runs.start());
  expect("busy" in runs.start()).toBe(true);
  expect([runs.active, runs.total]).toEqual([2, 3]);
});

test("a tracked call takes no slot, and is cancelled with the runs on shutdown", async () => {
  const runs = new Runs(1);
  const call = handle(runs.track());
  const run = handle(runs.start());
  expect("busy" in runs.start()).toBe(true);
  const stopping = runs.stopAll(5_000);
  expect([call.signal.aborted, run.signal.aborted]).toEqual([true, true]);
  call.done();
  run.done();
  await stopping;
  expect(runs.active).toBe(0);
});

test("0 is no limit", () => {
  const runs = new Runs(0);
  for (let i = 0; i < 100; i++) handle(runs.start());
  expect(runs.active).toBe(100);
});

test("a draining Runs refuses new runs and calls naming the drain, and waits for the runs in flight to end", async () => {
  const runs = new Runs(0);
  const run = handle(runs.start());
  const draining = runs.drain(60_000);
  expect(runs.draining).toBe(true);
  for (const refused of [runs.start(), runs.track()]) {
    expect(refused).toMatchObject({ kind: "DRAINING" });
    expect("busy" in refused && refused.busy).toContain("daemon.drainGrace");
  }
  // the run in flight is not cancelled: it ends on its own, and the drain then resolves with none left
  expect(run.signal.aborted).toBe(false);
  run.done();
  expect(await draining).toBe(0);
});

test("a drain whose grace ends first says how many runs are still going, and leaves them to stopAll", async () => {
  const runs = new Runs(0);
  const run = handle(runs.start());
  expect(await runs.drain(1)).toBe(1);
  expect(run.signal.aborted).toBe(false);
  const stopping = runs.stopAll(5_000);
  expect(run.signal.aborted).toBe(true);
  run.done();
  await stopping;
});

test("readiness is green only when every server is up and the daemon is not draining, and says why otherwise", () => {
  const up = { state: "up" } as const;
  expect(readiness([["a", up]], false, true)).toEqual({ ready: true, draining: false, servers: { a: "up" } });
  expect(readiness([], false, false).ready).toBe(true);
  const mixed = readiness(
    [
      ["a", up],
      ["b", { state: "starting" }],
      ["c", { state: "failed", reason: "exited 3" }],
      ["d", { state: "down" }],
    ],
    false,
    false,
  );
  expect(mixed).toMatchObject({ ready: false, servers: { a: "up", b: "starting", c: "failed: exited 3", d: "down" } });
  expect(mixed.why).toContain("not up: b, c, d");
  expect(mixed.why).toContain("MCPX_DAEMON_START_SERVERS=1");
  // draining wins over servers that are all up: an orchestrator must stop sending work
  expect(readiness([["a", up]], true, true)).toMatchObject({ ready: false, draining: true, why: expect.stringContaining("draining") });
});
