// A served run's artifacts as MCP content (lib/mcpserver/artifact-content.ts): each by its type, in
// the order made, whole or linked, never past mcp.maxAnswer with the run's own answer; the link form
// no wrapped upstream URI can take; and an agent session's links, its own and gone when it closes.

import { describe, expect, test } from "bun:test";
import { emptyEnvelope, type Envelope } from "../../lib/exec/envelope.ts";
import { newAgentSession } from "../../lib/mcpserver/agent-session.ts";
import { answerWithArtifacts, artifactContents, artifactLink, inlineItem, isArtifactLink, isTextMime } from "../../lib/mcpserver/artifact-content.ts";
import { execAnswer } from "../../lib/mcpserver/exec-answer.ts";

type Made = Envelope["artifacts"][number];
const made = (n: number, mime: string, size: number): Made => ({ id: `r.${n}`, name: `a${n}`, mime, size, sha256: "", uri: artifactLink(`r.${n}`) });
const sent = (a: { content: unknown[]; structured?: unknown }) =>
  // the content array and structuredContent as sent; ENVELOPE_SLACK stands for the rest of the frame
  Buffer.byteLength(JSON.stringify(a.content)) + Buffer.byteLength(JSON.stringify(a.structured ?? null)) + 512;

describe("isTextMime", () => {
  test("text/*, JSON, XML, +json/+xml, scripts and CSV are text; a charset other than UTF-8 and binary types are not", () => {
    for (const m of [
      "text/plain",
      "text/csv",
      "text/plain;charset=utf-8",
      "application/json",
      "application/xml",
      "application/ld+json",
      "image/svg+xml",
      "application/javascript",
      "application/csv",
      "application/x-yaml",
    ])
      expect([m, isTextMime(m)]).toEqual([m, true]);
    for (const m of ["text/plain; charset=iso-8859-1", "application/octet-stream", "image/png", "audio/wav", "application/pdf", ""])
      expect([m, isTextMime(m)]).toEqual([m, false]);
  });
});

describe("inlineItem", () => {
  const bytes = new Uint8Array([0, 1, 2, 255]);
  test("text as text, an image and audio as such, anything else as an embedded resource at its link", () => {
    expect(inlineItem({ mime: "text/plain", uri: "u" }, Buffer.from("héllo"))).toEqual({ type: "text", text: "héllo" });
    expect(inlineItem({ mime: "image/png", uri: "u" }, bytes)).toEqual({ type: "image", data: "AAEC/w==", mimeType: "image/png" });
    expect(inlineItem({ mime: "audio/wav", uri: "u" }, bytes)).toEqual({ type: "audio", data: "AAEC/w==", mimeType: "audio/wav" });
    expect(inlineItem({ mime: "application/pdf", uri: "u" }, bytes)).toEqual({
      type: "resource",
      resource: { uri: "u", mimeType: "application/pdf", blob: "AAEC/w==" },
    });
  });

  test("a text type whose bytes are not UTF-8 goes as a blob: as text it would not be the bytes the script made", () => {
    expect(inlineItem({ mime: "text/plain", uri: "u" }, bytes)).toMatchObject({ type: "resource", resource: { blob: "AAEC/w==" } });
    expect(artifactContents("u", "text/plain", bytes)).toEqual({ uri: "u", mimeType: "text/plain", blob: "AAEC/w==" });
    expect(artifactContents("u", "text/plain", Buffer.from("ok"))).toEqual({ uri: "u", mimeType: "text/plain", text: "ok" });
  });
});

describe("artifact links", () => {
  test("a link is mcpx:artifact/ID, which no wrapped upstream URI (mcpx://SERVER/…) can be, a server named artifact included", () => {
    expect(artifactLink("run.1")).toBe("mcpx:artifact/run.1");
    expect(isArtifactLink("mcpx:artifact/run.1")).toBe(true);
    expect(isArtifactLink("mcpx://artifact/run.1")).toBe(false);
    expect(isArtifactLink(`mcpx://artifact/${encodeURIComponent("fake://items/")}x/1`)).toBe(false);
  });

  test("a session reads only the links of its own runs' artifacts, and none once it closes", () => {
    const session = { cacheDir: "/nonexistent", get: () => 1 } as never;
    const mine = newAgentSession(session);
    const theirs = newAgentSession(session);
    const link = mine.keepArtifact({ id: "r.1", name: "a", mime: "text/plain", size: 1, path: "/p" });
    expect(mine.artifact(link)).toMatchObject({ name: "a", path: "/p" });
    expect(theirs.artifact(link)).toBeUndefined();
    mine.close();
    expect(mine.artifact(link)).toBeUndefined();
    // a run that outlived its session makes an artifact nobody can read
    expect(mine.artifact(mine.keepArtifact({ id: "r.2", name: "b", mime: "text/plain", size: 1, path: "/q" }))).toBeUndefined();
  });
});

describe("answerWithArtifacts", () => {
  const env: Envelope = { ...emptyEnvelope(), ok: true, exitCode: 0, runId: "r", result: 1 };
  const answer = (list: Made[], max: number, read: (a: Made) => Uint8Array | undefined = (a) => new Uint8Array(a.size).fill(120), e = env) =>
    answerWithArtifacts(list, max, read, (reserve) => execAnswer("text", { ...e, artifacts: list }, [], max, reserve));

  test("with no artifacts it is the run's answer: its text, and the envelope as structuredContent", () => {
    expect(answer([], 10_000)).toEqual({ content: [{ type: "text", text: "result: 1" }], structured: { ...env } as never });
  });

  test("what fits comes whole in the order made; what does not is linked, and the note names it, the cap and the setting", () => {
    const list = [made(1, "text/plain", 10), made(2, "application/octet-stream", 50_000), made(3, "image/png", 30)];
    const a = answer(list, 20_000);
    expect(a.content.map((c) => c.type)).toEqual(["text", "text", "resource_link", "image", "text"]);
    expect(a.content[2]).toEqual({ type: "resource_link", uri: "mcpx:artifact/r.2", name: "a2", mimeType: "application/octet-stream", size: 50_000 });
    const note = (a.content[4] as { text: string }).text;
    expect(note).toContain("1 artifact is linked rather than included, as it does not fit whole within mcp.maxAnswer (20000 bytes)");
    expect(note).toContain('"a2" (50000 bytes, mcpx:artifact/r.2)');
    expect(note).toContain("MCPX_MCP_MAX_ANSWER");
    expect(sent(a)).toBeLessThanOrEqual(20_000);
  });

  test("an artifact that cannot fit is linked without its bytes being read", () => {
    const read = (x: Made) => {
      if (x.size > 1000) throw new Error(`read ${x.name}`);
      return new Uint8Array(x.size);
    };
    expect(answer([made(1, "text/plain", 5_000_000)], 50_000, read).content[1]).toMatchObject({ type: "resource_link" });
  });

  test("an artifact whose bytes are gone is linked", () => {
    expect(answer([made(1, "text/plain", 3)], 50_000, () => undefined).content[1]).toMatchObject({ type: "resource_link" });
  });

  test("whatever the run printed and however many artifacts it made, the answer is within the cap; links past their share are named by range", () => {
    const loud: Envelope = { ...env, stdout: '"\\\u0001é'.repeat(40_000) };
    for (const max of [8_000, 50_000, 300_000])
      for (const n of [1, 5, 200, 2000]) {
        const list = Array.from({ length: n }, (_, i) => made(i + 1, i % 3 ? "text/plain" : "application/octet-stream", 1 + ((i * 7919) % 4000)));
        for (const e of [env, loud]) {
          const a = answer(list, max, undefined, e);
          expect([max, n, sent(a) <= max]).toEqual([max, n, true]);
          expect(a.content[0]!.type).toBe("text");
          const last = a.content.at(-1) as { type: string; text?: string };
          if (a.content.length < n + 1) expect(last.text).toContain(`no room even for a link here: mcpx:artifact/r.`);
        }
      }
  });
});
