// POST /v1/exec's NDJSON body (lib/daemon/ndjson-frames.ts): it ends with the end frame, whatever the
// daemon still does after it, and the run is done then; a cancelled run only once its frames are drained.

import { expect, test } from "bun:test";
import type { Frame } from "../../lib/exec/frames.ts";
import { ndjsonFrames } from "../../lib/daemon/ndjson-frames.ts";

const FRAMES: Frame[] = [{ type: "stdout", data: "hi\n" } as Frame, { type: "result", value: 1 } as Frame, { type: "end", exitCode: 0, durationMs: 3 }];

/** the frames, then a wait that the test ends: the run's work after its end frame */
function runWithTail() {
  let finishTail!: () => void;
  const tail = new Promise<void>((r) => (finishTail = r));
  let isDone!: () => void;
  const done = new Promise<void>((r) => (isDone = r));
  const events: string[] = [];
  let tailFinished!: () => void;
  const tailDone = new Promise<void>((r) => (tailFinished = r));
  async function* frames() {
    yield* FRAMES;
    await tail;
    events.push("tail finished");
    tailFinished();
  }
  const run = {
    abort: () => void events.push("aborted"),
    done: () => {
      events.push("done");
      isDone();
    },
  };
  return { frames: frames(), finishTail, events, run, done, tailDone };
}

test("the body ends with the end frame and the run is done then, while what follows it goes on", async () => {
  const r = runWithTail();
  const text = await new Response(ndjsonFrames(r.frames, r.run, false)).text();
  expect(
    text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l)),
  ).toEqual(FRAMES);
  await r.done;
  expect(r.events).toEqual(["done"]);
  // the frames are still taken to their end, so the run's stream finishes what it does after its end frame
  r.finishTail();
  await r.tailDone;
  expect(r.events).toEqual(["done", "tail finished"]);
});

test("a client that goes away cancels the run, and the run is done once its last frames are drained", async () => {
  const r = runWithTail();
  const reader = ndjsonFrames(r.frames, r.run, false).getReader();
  await reader.read();
  const cancelled = reader.cancel();
  expect(r.events).toEqual(["aborted"]);
  r.finishTail();
  await cancelled;
  expect(r.events).toEqual(["aborted", "tail finished", "done"]);
});

test("frames that end without an end frame still end the body, and the run is done", async () => {
  async function* frames() {
    yield FRAMES[0]!;
  }
  const events: string[] = [];
  const text = await new Response(ndjsonFrames(frames(), { abort: () => events.push("aborted"), done: () => events.push("done") }, false)).text();
  expect(text).toBe(`${JSON.stringify(FRAMES[0])}\n`);
  expect(events).toEqual(["done"]);
});

test("a run that streams its artifacts' bytes after its end frame (delivery stream) ends its body with the last of them", async () => {
  const chunk = { type: "artifact.chunk", id: "a1", seq: 0, data: "aGk=" } as unknown as Frame;
  async function* frames() {
    yield* FRAMES;
    yield chunk;
  }
  const events: string[] = [];
  const text = await new Response(ndjsonFrames(frames(), { abort: () => events.push("aborted"), done: () => events.push("done") }, true)).text();
  expect(
    text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l)),
  ).toEqual([...FRAMES, chunk]);
  expect(events).toEqual(["done"]);
});
