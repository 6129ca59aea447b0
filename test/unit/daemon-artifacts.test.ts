// KeptArtifacts, the daemon's memory of the artifacts its runs made (GET /v1/artifacts/ID): each is
// served until daemon.artifactTtl after its run ends, all together at most daemon.artifactMax, the
// oldest forgotten first; a forgotten id answers why; a content file may go only when no kept
// artifact holds its bytes. The clock is injected: an hour passes in a line. Also the
// content-disposition header an artifact's name becomes.

import { describe, expect, test } from "bun:test";
import { attachment } from "../../lib/daemon/artifacts-route.ts";
import { KeptArtifacts, type Forgotten, type KeptArtifact } from "../../lib/daemon/kept-artifacts.ts";

const HOUR = 3_600_000;
const RUN_A = "0a1b2c3d-0000-4000-8000-00000000000a";
const RUN_B = "0a1b2c3d-0000-4000-8000-00000000000b";

function registry(ttlMs: number, maxBytes: number) {
  let now = 1_000;
  const forgotten: Array<[string, Forgotten, boolean]> = [];
  const kept = new KeptArtifacts({
    ttlMs,
    maxBytes,
    now: () => now,
    onForget: (a, why, last) => forgotten.push([a.id, why, last]),
  });
  return { kept, forgotten, pass: (ms: number) => (now += ms) };
}

const artifact = (id: string, size: number, sha256 = id.replace(/\W/g, "").padEnd(64, "0").slice(0, 64)): Omit<KeptArtifact, "madeAt"> => ({
  id,
  path: `/cache/artifacts/${sha256}`,
  name: "out.txt",
  mime: "text/plain",
  size,
  sha256,
});

describe("the ttl counts from the run's end", () => {
  test("an artifact of a run still going is served however long it goes; once it ended, for the ttl and not a millisecond more", () => {
    const { kept, forgotten, pass } = registry(HOUR, 0);
    const run = kept.run();
    run.keep(artifact(`${RUN_A}.1`, 5));
    pass(3 * HOUR);
    // a ttl counted from the artifact's making would have forgotten it here
    expect(kept.get(`${RUN_A}.1`).ok).toBe(true);
    run.ended();
    pass(HOUR - 1);
    expect(kept.get(`${RUN_A}.1`).ok).toBe(true);
    pass(1);
    const late = kept.get(`${RUN_A}.1`);
    expect(late).toMatchObject({ ok: false, why: "expired" });
    expect(!late.ok && late.message).toContain("daemon.artifactTtl (1h) after its run ends");
    expect(forgotten).toEqual([[`${RUN_A}.1`, "expired", true]]);
    expect(kept.bytes).toBe(0);
  });

  test("ended twice keeps the first end's time", () => {
    const { kept, pass } = registry(HOUR, 0);
    const run = kept.run();
    run.keep(artifact(`${RUN_A}.1`, 5));
    run.ended();
    pass(HOUR / 2);
    run.ended();
    pass(HOUR / 2);
    expect(kept.get(`${RUN_A}.1`).ok).toBe(false);
  });

  test("a ttl of 0 keeps an artifact until the size bound forgets it", () => {
    const { kept, pass } = registry(0, 0);
    const run = kept.run();
    run.keep(artifact(`${RUN_A}.1`, 5));
    run.ended();
    pass(365 * 24 * HOUR);
    expect(kept.get(`${RUN_A}.1`).ok).toBe(true);
  });
});

describe("past daemon.artifactMax the oldest go first", () => {
  test("a new artifact that takes the total past the bound forgets the oldest until the rest fit", () => {
    const { kept, forgotten, pass } = registry(HOUR, 10);
    const a = kept.run();
    a.keep(artifact(`${RUN_A}.1`, 4));
    pass(1);
    a.keep(artifact(`${RUN_A}.2`, 4));
    pass(1);
    const b = kept.run();
    b.keep(artifact(`${RUN_B}.1`, 4));
    // 12 > 10: only the oldest goes (forgetting both of run A's would give 4, not 8)
    expect(kept.ids()).toEqual([`${RUN_A}.2`, `${RUN_B}.1`]);
    expect(kept.bytes).toBe(8);
    expect(forgotten).toEqual([[`${RUN_A}.1`, "evicted", true]]);
    const gone = kept.get(`${RUN_A}.1`);
    expect(gone).toMatchObject({ ok: false, why: "evicted" });
    expect(!gone.ok && gone.message).toContain("daemon.artifactMax");
  });

  test("exactly the bound is kept; one artifact larger than the bound alone is not", () => {
    const { kept } = registry(HOUR, 10);
    const run = kept.run();
    run.keep(artifact(`${RUN_A}.1`, 10));
    expect(kept.ids()).toEqual([`${RUN_A}.1`]);
    run.keep(artifact(`${RUN_A}.2`, 11));
    expect(kept.ids()).toEqual([]);
    expect(kept.get(`${RUN_A}.2`)).toMatchObject({ ok: false, why: "evicted" });
  });

  test("a maxBytes of 0 is no limit", () => {
    const { kept } = registry(HOUR, 0);
    const run = kept.run();
    for (let i = 1; i <= 100; i++) run.keep(artifact(`${RUN_A}.${i}`, 1 << 30));
    expect(kept.ids()).toHaveLength(100);
  });
});

describe("a content file may go only with the last artifact holding its bytes", () => {
  test("two artifacts with the same sha256: the first forgotten is not the last of its bytes, the second is", () => {
    const { kept, forgotten, pass } = registry(HOUR, 0);
    const sha = "ab".repeat(32);
    const a = kept.run();
    a.keep(artifact(`${RUN_A}.1`, 3, sha));
    a.ended();
    pass(HOUR / 2);
    const b = kept.run();
    b.keep(artifact(`${RUN_B}.1`, 3, sha));
    b.ended();
    pass(HOUR / 2);
    expect(kept.ids()).toEqual([`${RUN_B}.1`]);
    pass(HOUR / 2);
    expect(kept.ids()).toEqual([]);
    // a holder count that did not count both would remove the file while RUN_B's still served it
    expect(forgotten).toEqual([
      [`${RUN_A}.1`, "expired", false],
      [`${RUN_B}.1`, "expired", true],
    ]);
  });
});

describe("ids", () => {
  test("an id that is not RUNID.N is refused before anything is looked up; one never made is unknown", () => {
    const { kept } = registry(HOUR, 0);
    for (const bad of ["x", "../etc", `${RUN_A}`, `${RUN_A}.0`, `${RUN_A}.1/`, `${RUN_A.toUpperCase()}.1`]) {
      expect(kept.get(bad)).toMatchObject({ ok: false, why: "id" });
    }
    const unknown = kept.get(`${RUN_A}.7`);
    expect(unknown).toMatchObject({ ok: false, why: "unknown" });
    expect(!unknown.ok && unknown.message).toContain("none of its runs made it, or the daemon restarted");
  });
});

describe("content-disposition", () => {
  test("a plain name is quoted as it is", () => {
    expect(attachment("report.csv")).toBe('attachment; filename="report.csv"');
  });

  test('" and \\ are escaped inside the quotes', () => {
    expect(attachment('a "b" \\c.txt')).toBe('attachment; filename="a \\"b\\" \\\\c.txt"');
  });

  test("a name beyond ASCII gets an ASCII stand-in and its exact UTF-8 in filename*", () => {
    expect(attachment("résumé (1).txt")).toBe(`attachment; filename="r_sum_ (1).txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%281%29.txt`);
    // every character of the header value is one a header may carry
    expect(attachment("数据🙂.bin")).toMatch(/^[\x20-\x7e]+$/);
  });
});
