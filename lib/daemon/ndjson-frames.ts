// A run's frames as an NDJSON body (POST /v1/exec, output "stream"): one line per frame as it comes.
// The end frame is sent once the run's runtime and everything it started are gone, and unless the
// run streams its artifacts' bytes after it (delivery "stream", docs/frames.md) it is the last: the
// body ends with it and the run is done then (its slot under daemon.maxRuns is free for the caller's
// next run), and what the daemon does after it (the next run's runtime started) is not between the
// caller and its exit code. A client that goes away cancels the run, whose last frames are drained
// before it counts as done.

import type { Frame } from "../exec/frames.ts";
import { trace } from "../util/trace.ts";

/** the run behind a body: cancelled when its client goes away; told once it is over for its caller (its end frame sent, or, cancelled, its frames drained) */
export interface StreamedRun {
  abort(): void;
  done(): void;
}

/** @param afterEnd frames follow the end frame (delivery "stream"): the body ends with the last of them */
export function ndjsonFrames(frames: AsyncIterable<Frame>, run: StreamedRun, afterEnd: boolean): ReadableStream<Uint8Array> {
  const it = frames[Symbol.asyncIterator]();
  const enc = new TextEncoder();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    run.done();
  };
  /** the rest of the frames taken, so that what the run does after its end frame (runDelivered: execute.ts) still happens */
  const drain = async () => {
    while (!(await it.next()).done);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const r = await it.next();
      if (r.done) {
        finish();
        controller.close();
        return;
      }
      controller.enqueue(enc.encode(JSON.stringify(r.value satisfies Frame) + "\n"));
      if (r.value.type !== "end" || afterEnd) return;
      trace("end frame sent");
      controller.close();
      finish();
      void drain();
    },
    async cancel() {
      run.abort();
      await drain();
      finish();
    },
  });
}
