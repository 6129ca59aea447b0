// The frame-order guard: the order of design §3 as one pure check over a finished stream. Every
// surface (CLI, /v1/exec, mcpx_exec) speaks the same frames, so tests run this over each of them.
//
//   start · hook{script,before} · body (log emit stdout stderr call hook{call|server.start|resource.read|prompt.get})
//   · artifact · hook{script,onSuccess|onError} · result|error · hook{script,suffix} · end
//   · (delivery "stream" only) artifact.chunk… artifact.end per artifact
//
// except that a script onError hook frame with retry: true starts the body again (execute.ts runs
// the script once more within hooks.retryBudget).
//
// Each frame is placed in a slot; a frame whose slot is lower than the highest slot already seen is
// out of order. A misplaced frame does not move the high-water mark, so one stray frame gives one
// violation rather than a cascade. Frame types are an open set: a type this table does not know is
// allowed anywhere between start and end, and so is a frame made by a hook's own call (`by`).

import { FRAME_TYPES, type Frame } from "./frames.ts";

type Slot = (typeof FRAME_TYPES)[keyof typeof FRAME_TYPES]["slot"];

const RANK: Record<Slot, number> = { open: 0, before: 1, body: 2, artifacts: 3, settle: 4, final: 5, after: 6, close: 7, trailer: 8 };

/** how each slot is named in a violation, so the message says what must come where */
const SLOT_TEXT: Record<Slot, string> = {
  open: "start",
  before: "before hooks",
  body: "body frames (log, emit, stdout, stderr, call, call/server.start/resource.read/prompt.get hooks)",
  artifacts: "artifact frames",
  settle: "onSuccess/onError hooks",
  final: "result/error",
  after: "suffix hooks",
  close: "end",
  trailer: "artifact.chunk/artifact.end",
};

/** the points whose hook frames stand among the body frames, whatever their phase */
const BODY_POINTS = new Set(["call", "server.start", "resource.read", "prompt.get"]);

/** the slot of a script-point hook frame, by phase; prefix is inline-only and produces no frame */
const SCRIPT_PHASE_SLOT: Record<string, Slot> = { before: "before", onSuccess: "settle", onError: "settle", suffix: "after" };

/** human-readable violations of design §3's order; empty when the stream is well-formed */
export function checkFrameOrder(frames: readonly Frame[]): string[] {
  const out: string[] = [];
  let high: { rank: number; at: number; slot: Slot } | undefined;
  // with no start at all, say so once instead of calling every frame early
  const firstStart = frames.findIndex((f) => f.type === "start");
  let start: number | undefined;
  let final: number | undefined;
  let end: number | undefined;
  /** the artifacts announced, and for each whose bytes follow end, the next seq (or "ended") */
  const announced = new Set<string>();
  const chunks = new Map<string, number | "ended">();

  frames.forEach((frame, i) => {
    const label = `frame ${i} (${describe(frame)})`;
    const slot = slotOf(frame);
    if (typeof slot === "object") {
      out.push(`${label}: ${slot.problem}`);
      return;
    }
    if (slot === "trailer") {
      const problem = end === undefined ? "comes before end: an artifact's bytes follow end" : trailerProblem(frame, announced, chunks);
      if (problem) out.push(`${label} ${problem}`);
      return;
    }
    if (frame.type === "artifact") announced.add(frame.id);
    if (end !== undefined) {
      out.push(
        frame.type === "end"
          ? `${label}: a second end (the first was frame ${end}); end comes exactly once`
          : `${label} comes after end (frame ${end}): nothing may follow end`,
      );
      return;
    }
    if (frame.type === "start") {
      if (start !== undefined) out.push(`${label}: a second start (the first was frame ${start}); start comes exactly once`);
      else start = i;
      // a late first start is already reported through the frames before it
      if (high === undefined) high = { rank: RANK.open, at: i, slot: "open" };
      return;
    }
    if (start === undefined && firstStart >= 0) {
      out.push(`${label} comes before start: start must be the first frame`);
      return;
    }
    if (frame.type === "result" || frame.type === "error") {
      if (final !== undefined) {
        out.push(`${label}: a second result/error (the first was frame ${final} (${describe(frames[final]!)})); a run has exactly one`);
        return;
      }
      final = i;
    }
    if (frame.type === "end") end = i;
    if (slot === undefined) return; // an unknown frame type: allowed anywhere between start and end
    const rank = RANK[slot];
    if (high !== undefined && rank < high.rank) {
      const prev = (at: number) => `frame ${at} (${describe(frames[at]!)})`;
      out.push(
        final !== undefined && final < i
          ? `${label} comes after ${describe(frames[final]!)} at frame ${final}: only suffix hooks and end may follow result/error`
          : `${label} comes after ${prev(high.at)}: ${SLOT_TEXT[slot]} must come before ${SLOT_TEXT[high.slot]}`,
      );
      return;
    }
    // an onError hook that asked for a retry (effect run) reopens the body: the script runs again,
    // so its stdout, logs and calls and then its own onSuccess/onError hooks follow; before hooks do not
    high = isRetry(frame) ? { rank: RANK.body, at: i, slot } : { rank, at: i, slot };
  });

  for (const [id, next] of chunks) if (next !== "ended") out.push(`artifact ${id}: its chunks began after end and no artifact.end closed them`);
  if (firstStart < 0) out.push("no start frame: a stream opens with exactly one start");
  if (final === undefined) out.push("no result or error frame: a run reports exactly one, before the suffix hooks and end");
  if (end === undefined) out.push("no end frame: a stream closes with exactly one end");
  return out;
}

/** what is wrong with an artifact.chunk or artifact.end after end, or undefined */
function trailerProblem(frame: Frame, announced: Set<string>, chunks: Map<string, number | "ended">): string | undefined {
  if (frame.type !== "artifact.chunk" && frame.type !== "artifact.end") return undefined;
  if (!announced.has(frame.id)) return `is for artifact ${frame.id}, which no artifact frame announced`;
  const next = chunks.get(frame.id) ?? 0;
  if (next === "ended") return `comes after artifact.end for ${frame.id}: an artifact's bytes end once`;
  if (frame.type === "artifact.end") {
    chunks.set(frame.id, "ended");
    return undefined;
  }
  if (frame.seq !== next) return `has seq ${frame.seq} for ${frame.id}, where ${next} was next: chunks come in order from 0`;
  chunks.set(frame.id, next + 1);
  return undefined;
}

/** the frame's slot; undefined for a type nobody declared; a problem for a hook frame that cannot exist */
function slotOf(frame: Frame): Slot | undefined | { problem: string } {
  // a hook's own call (and the hook frames of the calls it makes) happen while that hook runs, at
  // whatever phase it runs in, before its own hook frame: they stand wherever that is
  if ((frame.type === "call" || frame.type === "hook") && frame.by !== undefined) return undefined;
  const declared = (FRAME_TYPES as Record<string, { slot: Slot } | undefined>)[frame.type];
  if (declared === undefined) return undefined;
  if (frame.type !== "hook") return declared.slot;
  if (BODY_POINTS.has(frame.on)) return "body";
  if (frame.on !== "script") {
    return { problem: `a hook frame on "${frame.on}", which is not a point: use script, call, server.start, resource.read or prompt.get` };
  }
  const slot = Object.hasOwn(SCRIPT_PHASE_SLOT, frame.phase) ? SCRIPT_PHASE_SLOT[frame.phase] : undefined;
  if (slot === undefined) {
    return {
      problem:
        `a script hook frame with phase "${frame.phase}": only before, onSuccess, onError and ` +
        `suffix hooks produce frames (prefix is inline source, which produces none)`,
    };
  }
  return slot;
}

function isRetry(frame: Frame): boolean {
  return frame.type === "hook" && frame.on === "script" && frame.phase === "onError" && frame.retry === true;
}

function describe(frame: Frame): string {
  return frame.type === "hook" ? `hook ${frame.on} ${frame.phase}` : frame.type;
}
