// The frame-order guard (lib/exec/frame-order.ts), table-driven: well-formed streams give no
// violations, and each kind of violation is produced by a stream that has exactly that one fault.

import { describe, expect, test } from "bun:test";
import { checkFrameOrder } from "../../lib/exec/frame-order.ts";
import type { Frame } from "../../lib/exec/frames.ts";

const start: Frame = { type: "start", runId: "r1" };
const end: Frame = { type: "end", exitCode: 0, durationMs: 5 };
const result: Frame = { type: "result", value: 42 };
const error: Frame = { type: "error", error: { name: "Error", message: "boom" } };
const log: Frame = { type: "log", level: "info", message: "hi" };
const emit: Frame = { type: "emit", value: { n: 1 } };
const stdout: Frame = { type: "stdout", data: "out\n" };
const stderr: Frame = { type: "stderr", data: "err\n" };
const call: Frame = { type: "call", server: "s", tool: "t", argsHash: "h", durationMs: 1, ok: true };
const hook = (on: string, phase: string): Frame => ({ type: "hook", on, phase, action: "run", effect: "advise", durationMs: 1, changed: false });
const before = hook("script", "before");
const onSuccess = hook("script", "onSuccess");
const onError = hook("script", "onError");
const suffix = hook("script", "suffix");
/** an onError hook whose output asked to run the script again (effect run) */
const onErrorRetry: Frame = { ...hook("script", "onError"), retry: true } as Frame;
const artifact = (id: string): Frame => ({ type: "artifact", id, name: `${id}.txt`, mime: "text/plain", size: 2, sha256: "00", uri: `file:///c/${id}` });
const chunk = (id: string, seq: number): Frame => ({ type: "artifact.chunk", id, seq, data: "aGk=" });
const artifactEnd = (id: string): Frame => ({ type: "artifact.end", id });
/** a frame type this guard does not know: the set is open, consumers ignore it */
const unknown = { type: "future.kind", id: "a1" } as unknown as Frame;

describe("well-formed streams have no violations", () => {
  const ok: Array<[string, Frame[]]> = [
    ["the smallest run: start, result, end", [start, result, end]],
    ["a failed run: start, error, end", [start, error, end]],
    ["every slot in order", [start, before, before, log, emit, stdout, stderr, call, hook("call", "before"), onSuccess, result, suffix, end]],
    ["onError hooks before an error", [start, call, onError, onError, error, suffix, suffix, end]],
    ["an onSuccess hook may turn success into an error (refuse)", [start, onSuccess, error, end]],
    ["an onError hook may recover with a value (apply)", [start, onError, result, end]],
    [
      "call and server.start hooks of any phase interleave with the body",
      [start, hook("server.start", "before"), call, hook("call", "onError"), log, hook("call", "suffix"), hook("server.start", "onSuccess"), result, end],
    ],
    ["body frames interleave in any order", [start, stderr, log, call, stdout, emit, log, result, end]],
    [
      "an onError hook that asks for a retry is followed by the retried run's body and hooks",
      [start, before, log, onErrorRetry, stdout, call, onErrorRetry, log, onError, error, suffix, end],
    ],
    ["a retried run may succeed", [start, call, onErrorRetry, call, onSuccess, result, end]],
    ["artifacts stand after the output and before onSuccess", [start, stdout, call, artifact("a"), artifact("b"), onSuccess, result, suffix, end]],
    ["a failed run's artifacts stand before its onError hooks", [start, log, artifact("a"), onError, error, end]],
    ["a retried run announces its own artifacts after its body", [start, artifact("a"), onErrorRetry, stdout, artifact("b"), onSuccess, result, end]],
    [
      "delivery stream: each artifact's chunks in order and its end, after end",
      [start, artifact("a"), artifact("b"), result, end, chunk("a", 0), chunk("a", 1), artifactEnd("a"), chunk("b", 0), artifactEnd("b")],
    ],
    ["an unknown frame type is allowed anywhere between start and end", [start, unknown, before, unknown, log, unknown, result, unknown, suffix, unknown, end]],
  ];
  for (const [name, frames] of ok) test(name, () => expect(checkFrameOrder(frames)).toEqual([]));
});

describe("each violation is reported once, naming the frame and the rule", () => {
  const bad: Array<{ name: string; frames: Frame[]; violations: RegExp[] }> = [
    {
      name: "an artifact after an onSuccess hook",
      frames: [start, onSuccess, artifact("a"), result, end],
      violations: [/^frame 2 \(artifact\) comes after frame 1 \(hook script onSuccess\): artifact frames must come before onSuccess\/onError hooks/],
    },
    {
      name: "an artifact after the result",
      frames: [start, result, artifact("a"), end],
      violations: [/^frame 2 \(artifact\) comes after result at frame 1: only suffix hooks and end may follow/],
    },
    {
      name: "a body frame after an artifact",
      frames: [start, artifact("a"), stdout, result, end],
      violations: [/^frame 2 \(stdout\) comes after frame 1 \(artifact\): body frames .* must come before artifact frames/],
    },
    { name: "a chunk before end", frames: [start, artifact("a"), chunk("a", 0), result, end], violations: [/^frame 2 \(artifact.chunk\) comes before end/] },
    {
      name: "a chunk of an artifact nobody announced",
      frames: [start, result, end, chunk("x", 0), artifactEnd("x")],
      violations: [/^frame 3 \(artifact.chunk\) is for artifact x, which no artifact frame announced/, /^frame 4 \(artifact.end\) is for artifact x/],
    },
    {
      name: "chunks out of order",
      frames: [start, artifact("a"), result, end, chunk("a", 1), artifactEnd("a")],
      violations: [/^frame 4 \(artifact.chunk\) has seq 1 for a, where 0 was next/],
    },
    {
      name: "a chunk after its artifact's end",
      frames: [start, artifact("a"), result, end, chunk("a", 0), artifactEnd("a"), chunk("a", 1)],
      violations: [/^frame 6 \(artifact.chunk\) comes after artifact.end for a/],
    },
    {
      name: "chunks that never end",
      frames: [start, artifact("a"), result, end, chunk("a", 0)],
      violations: [/^artifact a: its chunks began after end and no artifact.end closed them/],
    },
    {
      name: "a log after end, among the chunks",
      frames: [start, artifact("a"), result, end, chunk("a", 0), log, artifactEnd("a")],
      violations: [/^frame 5 \(log\) comes after end/],
    },
    {
      name: "an empty stream lacks start, result/error and end",
      frames: [],
      violations: [/^no start frame/, /^no result or error frame/, /^no end frame/],
    },
    { name: "a stream without start says so once", frames: [log, result, end], violations: [/^no start frame/] },
    { name: "a frame before start", frames: [log, start, result, end], violations: [/^frame 0 \(log\) comes before start: start must be the first frame$/] },
    { name: "a second start", frames: [start, log, start, result, end], violations: [/^frame 2 \(start\): a second start \(the first was frame 0\)/] },
    {
      name: "a before hook after a body frame",
      frames: [start, log, before, result, end],
      violations: [/^frame 2 \(hook script before\) comes after frame 1 \(log\): before hooks must come before body frames/],
    },
    {
      name: "a body frame after an onSuccess hook",
      frames: [start, onSuccess, call, result, end],
      violations: [/^frame 2 \(call\) comes after frame 1 \(hook script onSuccess\): body frames .* must come before onSuccess\/onError hooks$/],
    },
    {
      name: "a call hook after an onError hook",
      frames: [start, onError, hook("call", "before"), error, end],
      violations: [/^frame 2 \(hook call before\) comes after frame 1 \(hook script onError\)/],
    },
    {
      name: "a before hook after an onSuccess hook",
      frames: [start, onSuccess, before, result, end],
      violations: [/^frame 2 \(hook script before\) comes after frame 1 \(hook script onSuccess\): before hooks must come before onSuccess\/onError hooks$/],
    },
    {
      name: "a retry does not run the before hooks again",
      frames: [start, log, onErrorRetry, before, log, result, end],
      violations: [/^frame 3 \(hook script before\) comes after frame 2 \(hook script onError\): before hooks must come before onSuccess\/onError hooks$/],
    },
    {
      name: "retry on an onSuccess hook does not reopen the body",
      frames: [start, { ...onSuccess, retry: true } as Frame, log, result, end],
      violations: [/^frame 2 \(log\) comes after frame 1 \(hook script onSuccess\)/],
    },
    {
      name: "a retry after the result changes nothing: the result stays final",
      frames: [start, error, onErrorRetry, log, end],
      violations: [/^frame 2 \(hook script onError\) comes after error at frame 1/, /^frame 3 \(log\) comes after error at frame 1/],
    },
    {
      name: "a body frame after the result",
      frames: [start, result, log, end],
      violations: [/^frame 2 \(log\) comes after result at frame 1: only suffix hooks and end may follow result\/error$/],
    },
    {
      name: "an onSuccess hook after the result (every onSuccess hook finishes before it)",
      frames: [start, result, onSuccess, end],
      violations: [/^frame 2 \(hook script onSuccess\) comes after result at frame 1: only suffix hooks and end may follow/],
    },
    {
      name: "an onError hook after the error",
      frames: [start, error, onError, end],
      violations: [/^frame 2 \(hook script onError\) comes after error at frame 1/],
    },
    {
      name: "a body frame after a suffix hook, after the result",
      frames: [start, result, suffix, stdout, end],
      violations: [/^frame 3 \(stdout\) comes after result at frame 1: only suffix hooks and end may follow/],
    },
    {
      name: "a suffix hook before the result",
      frames: [start, suffix, result, end],
      violations: [/^frame 2 \(result\) comes after frame 1 \(hook script suffix\): result\/error must come before suffix hooks$/],
    },
    {
      name: "two results",
      frames: [start, result, result, end],
      violations: [/^frame 2 \(result\): a second result\/error \(the first was frame 1 \(result\)\); a run has exactly one$/],
    },
    {
      name: "a result and an error",
      frames: [start, error, result, end],
      violations: [/^frame 2 \(result\): a second result\/error \(the first was frame 1 \(error\)\)/],
    },
    { name: "no result or error", frames: [start, log, suffix, end], violations: [/^no result or error frame/] },
    { name: "no end", frames: [start, result, suffix], violations: [/^no end frame/] },
    { name: "a second end", frames: [start, result, end, end], violations: [/^frame 3 \(end\): a second end \(the first was frame 2\)/] },
    { name: "a frame after end", frames: [start, result, end, log], violations: [/^frame 3 \(log\) comes after end \(frame 2\): nothing may follow end$/] },
    { name: "a suffix hook after end", frames: [start, result, end, suffix], violations: [/^frame 3 \(hook script suffix\) comes after end/] },
    { name: "an unknown frame type after end", frames: [start, result, end, unknown], violations: [/^frame 3 \(future\.kind\) comes after end/] },
    { name: "an unknown frame type before start", frames: [unknown, start, result, end], violations: [/^frame 0 \(future\.kind\) comes before start/] },
    { name: "a result after end", frames: [start, end, result], violations: [/^frame 2 \(result\) comes after end/, /^no result or error frame/] },
    { name: "a start after end", frames: [start, result, end, start], violations: [/^frame 3 \(start\) comes after end/] },
    {
      name: "a script hook frame with phase prefix (inline source produces no frames)",
      frames: [start, hook("script", "prefix"), result, end],
      violations: [/^frame 1 \(hook script prefix\): a script hook frame with phase "prefix": only before, onSuccess, onError and suffix/],
    },
    {
      name: "a script hook frame with a phase outside the six",
      frames: [start, hook("script", "after"), result, end],
      violations: [/^frame 1 \(hook script after\): a script hook frame with phase "after"/],
    },
    {
      name: "a hook frame on something that is not a point",
      frames: [start, hook("tool", "before"), result, end],
      violations: [/^frame 1 \(hook tool before\): a hook frame on "tool", which is not a point: use script, call, server.start, resource.read or prompt.get$/],
    },
  ];
  for (const { name, frames, violations } of bad) {
    test(name, () => {
      const got = checkFrameOrder(frames);
      expect(got).toHaveLength(violations.length);
      for (const [i, re] of violations.entries()) expect(got[i]).toMatch(re);
    });
  }
});

test("one stray frame gives one violation, not a cascade over the frames after it", () => {
  // the stray log does not move the high-water mark, so the suffix hook and end after it are fine
  expect(checkFrameOrder([start, onSuccess, log, result, suffix, end])).toHaveLength(1);
});

test("several faults are reported in stream order", () => {
  const got = checkFrameOrder([log, start, result, call, result, end, end]);
  expect(got.map((v) => v.split(/[:(]/)[0]!.trim())).toEqual(["frame 0", "frame 3", "frame 4", "frame 6"]);
});
