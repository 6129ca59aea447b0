// Runs, the daemon's (and mcpx serve's) runs in flight: at most max scripts at once (daemon.maxRuns),
// the next refused at once with words naming the setting; a slot is free again once its run is done
// (once, however often done is called); a /v1/call (track) is cancelled with the rest but takes no slot.

import { expect, test } from "bun:test";
import { Runs, type RunHandle } from "../../lib/daemon/runs.ts";

const handle = (r: ReturnType<Runs["start"]>): RunHandle => {
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
  const call = runs.track();
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
