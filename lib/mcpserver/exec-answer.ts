// mcpx_exec's answer: its text content in each output mode and its structuredContent, never larger
// than mcp.maxAnswer. An SDK client closes the agent's whole connection on a message over 10 MiB,
// so one loud script must not produce one. Pure: the envelope and frames in, the answer's parts out.
//
// How the two parts share the bytes (docs/mcpserver.md): an answer that fits carries the text and
// the envelope as structuredContent, as MCP asks of a tool that gives structured content. One that
// does not fit carries the run once, in the text, cut, and no structuredContent: the text is what a
// model reads, and the same bytes twice would only halve what it gets. Cut strings keep their head
// and their tail (where an error usually is), and the answer says what was cut and how to get it all.

import type { Envelope } from "../exec/envelope.ts";
import type { Frame } from "../exec/frames.ts";
import type { OutputMode } from "../exec/options.ts";

export interface ExecAnswer {
  text: string;
  structured?: Record<string, unknown>;
}

/** what one cut kept: `bytes` before, `kept` after (a string's UTF-8 bytes, any other value's JSON) */
interface Cut {
  bytes: number;
  kept: number;
}

/**
 * What the rest of a tools/call result adds to its text and structuredContent (content array,
 * isError, the JSON-RPC frame): a bound, not a measure, so that an answer within the cap is within it on the wire.
 */
export const ENVELOPE_SLACK = 512;

/** how often the cut is made again, smaller, when escapes made it come out larger than aimed for */
const FIT_ATTEMPTS = 8;

/** `reserve`: bytes of the cap kept for what the answer carries after the text (artifact-content.ts) */
export function execAnswer(output: OutputMode, envelope: Envelope, frames: readonly Frame[], max: number, reserve = 0): ExecAnswer {
  const text = execText(output, envelope, frames);
  if (wire(text) + wire(envelope) + ENVELOPE_SLACK + reserve <= max) return { text, structured: envelope as unknown as Record<string, unknown> };
  let budget = max - reserve - ENVELOPE_SLACK;
  for (let i = 0; i < FIT_ATTEMPTS; i++) {
    const cut = output === "stream" ? cutStream(frames, budget, max) : cutEnvelope(output, envelope, budget, max);
    const over = wire(cut) + ENVELOPE_SLACK + reserve - max;
    if (over <= 0) return { text: cut };
    budget -= over + Math.ceil(budget / 16);
  }
  // nothing of the run fits: its bulk is all gone, and only the note is left
  return { text: cutNote(max, {}) };
}

/** mcpx_exec's text content in each output mode; the structuredContent is always the envelope */
function execText(output: OutputMode, envelope: Envelope, frames: readonly Frame[]): string {
  switch (output) {
    case "text":
      return summary(envelope);
    case "json":
      return JSON.stringify(envelope);
    case "stream":
      return frames.map((f) => JSON.stringify(f) + "\n").join("");
  }
}

/** the text an agent reads: what the script printed, then its result or its error */
function summary(env: Envelope): string {
  const parts: string[] = [];
  if (env.stdout) parts.push(env.stdout.endsWith("\n") ? env.stdout : `${env.stdout}\n`);
  if (env.ok) parts.push(`result: ${JSON.stringify(env.result)}`);
  else {
    // a failed run's stderr is usually why it failed
    if (env.stderr) parts.push(`stderr:\n${env.stderr.endsWith("\n") ? env.stderr : `${env.stderr}\n`}`);
    const e = env.error;
    parts.push(`error (exit ${env.exitCode}): ${e ? `${e.name}${e.code ? ` [${e.code}]` : ""}: ${e.message}` : "the run failed"}`);
  }
  return parts.join("");
}

/** the parts of an envelope that can be large, as the text of each mode shows them */
const BULK = ["stdout", "stderr", "result", "error", "emits", "logs", "calls", "hooks"] as const;
type Bulk = (typeof BULK)[number];

function cutEnvelope(output: "text" | "json", env: Envelope, budget: number, max: number): string {
  // the text mode shows stdout and the result, or stderr and the error; json shows everything
  const shown = BULK.filter((k) => output === "json" || k === "stdout" || (env.ok ? k === "result" : k === "stderr" || k === "error"));
  const sizes = Object.fromEntries(shown.map((k) => [k, wire(env[k])])) as Record<Bulk, number>;
  const emptied = { ...env, ...Object.fromEntries(shown.map((k) => [k, ""])) };
  // what is left with the shown parts emptied: the text mode shows none of the rest (calls, artifacts…)
  const fixed = output === "json" ? wire(emptied) : wire(summary(emptied as unknown as Envelope));
  const shares = fairShares(sizes, Math.max(0, budget - fixed - NOTE_ROOM));
  const out: Record<string, unknown> = { ...env };
  const cuts: Record<string, Cut> = {};
  for (const k of shown) {
    if (sizes[k] <= shares[k]!) continue;
    const value = cutValue(k, env[k], shares[k]!);
    out[k] = value;
    cuts[k] = { bytes: size(env[k]), kept: size(value) };
  }
  const note = cutNote(max, cuts);
  if (output === "json") return JSON.stringify({ ...out, truncated: { note, cut: cuts } });
  return `${summary(out as unknown as Envelope)}\n${note}`;
}

/** a string cut to about `share` bytes as serialized; any other value becomes its JSON, cut (an error keeps its name and code) */
function cutValue(k: Bulk, value: unknown, share: number): unknown {
  if (typeof value === "string") return cutString(value, share);
  if (k === "error" && value !== null && typeof value === "object") {
    const e = value as { name?: unknown; code?: unknown; message?: unknown };
    return { name: e.name, code: e.code, message: cutString(String(e.message ?? ""), share) };
  }
  return cutString(JSON.stringify(value) ?? "null", share);
}

/** room kept for the note and the `truncated` object around it */
const NOTE_ROOM = 1024;

function cutNote(max: number, cuts: Record<string, Cut>): string {
  const what = Object.entries(cuts).map(([k, c]) => `${k}: ${c.bytes} bytes, ${c.kept} kept`);
  return (
    `[mcpx: this answer was cut to fit mcp.maxAnswer (${max} bytes)${what.length ? ` (${what.join("; ")})` : ""}; the ` +
    `middle of each cut part is gone. To see all of it: print or return less (a summary, a slice, a count), ` +
    `ask for output "json" (the whole envelope, every part cut to share the room) or "stream", or raise ` +
    `mcp.maxAnswer (MCPX_MCP_MAX_ANSWER) where the server runs, well under the 10 MiB an MCP client reads]`
  );
}

/** the frames as NDJSON within the budget: the first and the last frames, one log frame in place of those between */
function cutStream(frames: readonly Frame[], budget: number, max: number): string {
  // no single frame may take more than a quarter: a huge print or result is cut inside its frame
  const quarter = Math.max(0, Math.floor((budget - NOTE_ROOM) / 4));
  const lines = frames.map((f) => JSON.stringify(fitFrame(f, quarter)) + "\n");
  const room = Math.max(0, budget - NOTE_ROOM);
  // the tail first, so that the end frame (and the result or error before it) is always there
  const tail: string[] = [];
  let used = 0;
  let j = lines.length - 1;
  for (; j >= 0 && used + wire(lines[j]!) <= room / 2; j--) {
    used += wire(lines[j]!);
    tail.unshift(lines[j]!);
  }
  const head: string[] = [];
  let i = 0;
  for (; i <= j && used + wire(lines[i]!) <= room; i++) {
    used += wire(lines[i]!);
    head.push(lines[i]!);
  }
  const dropped = j - i + 1;
  const cutBytes = lines.slice(i, j + 1).reduce((n, l) => n + wire(l), 0);
  const note = cutNote(max, dropped > 0 ? { [`${dropped} frames`]: { bytes: cutBytes, kept: 0 } } : {});
  return [...head, JSON.stringify({ type: "log", level: "warn", message: note } satisfies Frame) + "\n", ...tail].join("");
}

/** a frame whose serialized form is within `share`: stdout and stderr data and a result's value are cut */
function fitFrame(f: Frame, share: number): Frame {
  if (wire(f) <= share) return f;
  switch (f.type) {
    case "stdout":
    case "stderr":
      return { ...f, data: cutString(f.data, share - 64) } as Frame;
    case "result":
      return { ...f, value: cutString(JSON.stringify(f.value) ?? "null", share - 64) };
    default:
      return { type: "log", level: "warn", message: `mcpx: a ${f.type} frame of ${wire(f)} bytes was left out to fit mcp.maxAnswer` };
  }
}

/** s cut to about `share` bytes as serialized: its head and its tail, and a mark where the middle was */
function cutString(s: string, share: number): string {
  const mark = `\n…[mcpx: ${s.length} characters, the middle cut]…\n`;
  const perChar = wire(s) / Math.max(1, s.length);
  const keep = Math.max(0, Math.floor((share - wire(mark)) / perChar));
  if (keep >= s.length) return s;
  const headLen = Math.ceil(keep / 2);
  return wholeChars(s, 0, headLen) + mark + wholeChars(s, s.length - (keep - headLen), s.length);
}

/** s.slice(from, to) without half a surrogate pair at either end */
function wholeChars(s: string, from: number, to: number): string {
  const isLow = (i: number) => i > 0 && i < s.length && (s.charCodeAt(i) & 0xfc00) === 0xdc00;
  return s.slice(isLow(from) ? from + 1 : from, isLow(to) ? to - 1 : to);
}

/**
 * Each part's share of the budget: a part smaller than an even share keeps all of it, and what it
 * leaves goes to the larger ones (so a short stderr is never cut to make room for a long stdout).
 */
export function fairShares<K extends string>(sizes: Record<K, number>, budget: number): Record<K, number> {
  const keys = (Object.keys(sizes) as K[]).sort((a, b) => sizes[a] - sizes[b]);
  const out = {} as Record<K, number>;
  let left = budget;
  keys.forEach((k, n) => {
    const even = Math.floor(left / (keys.length - n));
    out[k] = Math.min(sizes[k], even);
    left -= out[k];
  });
  return out;
}

/** a string's UTF-8 bytes, any other value's JSON's: what the note reports */
function size(v: unknown): number {
  return typeof v === "string" ? Buffer.byteLength(v) : wire(v);
}

/** how many bytes a value takes once serialized as JSON (as it is sent) */
export function wire(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? "null");
}
