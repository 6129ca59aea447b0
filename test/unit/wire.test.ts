// The wire between launcher and host (launcher/wire.ts): each direction has one decoder, and whatever
// the chunking of fd 1, the host reads the same typed messages. Modelled on the MCP SDK's ReadBuffer
// tests: nothing before a newline, messages only once complete, invalid input never throws.

import { describe, expect, test } from "bun:test";
import { StdoutSplitter } from "../../lib/runtime/stdout-splitter.ts";
import { decodeHandoff, decodeHostAnswer, decodeLauncherMessage, RS, type Handoff, type LauncherMessage } from "../../launcher/wire.ts";

const NONCE = "n0Nc3";
const line = (m: unknown) => RS + NONCE + JSON.stringify(m) + "\n";

/** the host's read path: the splitter cuts frames out of fd 1, the decoder types them */
function reader() {
  const s = new StdoutSplitter(NONCE);
  const decode = (pieces: ReturnType<StdoutSplitter["push"]>): unknown[] =>
    pieces.map((p) => (p.kind === "frame" ? decodeLauncherMessage(p.body) : { text: p.data }));
  return { push: (chunk: string) => decode(s.push(chunk)), end: () => decode(s.end()) };
}

const messages: LauncherMessage[] = [
  { t: "stderr", d: "oops\n" },
  { t: "log", level: "warn", msg: "careful" },
  { t: "emit", v: { n: 1, list: [1, "two"] } },
  { t: "call", id: 1, server: "fake", tool: "echo", args: { message: "hi" } },
  { t: "feature", id: 2, op: "resource.read", server: "fake", target: "fake://note", args: {} },
  { t: "feature", id: 3, op: "prompt.get", server: "fake", target: "greet", args: { name: "Ada" } },
  { t: "result", v: null, u: true },
  { t: "error", e: { name: "ToolError", message: "no", code: "TOOL_ERROR", data: { server: "fake" } } },
];

describe("decodeLauncherMessage", () => {
  for (const m of messages) {
    test(`a ${m.t} frame decodes to the same message`, () => {
      expect(decodeLauncherMessage(JSON.parse(JSON.stringify(m)))).toEqual(m);
    });
  }

  test("a call without args gets an empty object, and a result without u is a defined value", () => {
    expect(decodeLauncherMessage({ t: "call", id: 2, server: "s", tool: "t" })).toEqual({ t: "call", id: 2, server: "s", tool: "t", args: {} });
    expect(decodeLauncherMessage({ t: "result", v: 3 })).toEqual({ t: "result", v: 3, u: false });
  });

  test("a frame type this host does not know is ignored, not an error: frame types are an open set", () => {
    expect(decodeLauncherMessage({ t: "artifact", id: "x" })).toBeUndefined();
  });

  test.each([
    [{ t: "stderr", d: 5 }, "stderr frame: d is not a string"],
    [{ t: "log", level: "loud", msg: "x" }, "log frame: level is not one of debug, info, warn, error"],
    [{ t: "call", id: 0, server: "s", tool: "t" }, "call frame: id is not a positive integer"],
    [{ t: "call", id: "1", server: "s", tool: "t" }, "call frame: id is not a positive integer"],
    [{ t: "call", id: 1, server: "s", tool: "t", args: [1] }, "call frame: args is not an object"],
    [{ t: "error", e: "boom" }, "error frame: e is not an error ({name, message})"],
    [{ t: "feature", id: 1, op: "tools.call", server: "s", target: "t" }, "feature frame: op is not one of resource.read, prompt.get"],
    [{ t: "feature", id: 1, op: "prompt.get", server: "s", target: "t", args: { n: 1 } }, "feature frame: args is not an object of strings"],
    [{ t: "feature", id: 1, op: "resource.read", server: "s" }, "feature frame: server and target are not strings"],
    [[1, 2], "a frame is a JSON object with a string t"],
    [{ d: "no type" }, "a frame is a JSON object with a string t"],
  ])("a known type with wrong fields is malformed and says why: %j", (body, why) => {
    expect(decodeLauncherMessage(body)).toEqual({ t: "malformed", why });
  });
});

describe("reading fd 1 in chunks", () => {
  test("nothing is decoded before a frame's newline, and the frame once it arrives", () => {
    const r = reader();
    const text = line(messages[3]);
    expect(r.push(text.slice(0, 10))).toEqual([]);
    expect(r.push(text.slice(10, -1))).toEqual([]);
    expect(r.push("\n")).toEqual([messages[3]]);
  });

  test("every message survives being cut at every byte, in order, with the text between them", () => {
    const stream = messages.map((m, i) => `text ${i}\n` + line(m)).join("");
    for (let size = 1; size <= 17; size++) {
      const r = reader();
      const out: object[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...(r.push(stream.slice(i, i + size)) as object[]));
      out.push(...(r.end() as object[]));
      expect(out.filter((o) => !("text" in o))).toEqual(messages);
      expect(out.flatMap((o) => ("text" in o ? [String(o.text)] : [])).join("")).toBe(messages.map((_, i) => `text ${i}\n`).join(""));
    }
  });

  test("several frames in one chunk all decode", () => {
    expect(reader().push(messages.map(line).join(""))).toEqual(messages);
  });

  test("a frame under another nonce is the script's text, never a message", () => {
    const forged = RS + "guess" + JSON.stringify(messages[3]) + "\n";
    expect(reader().push(forged)).toEqual([{ text: forged }]);
  });

  test("invalid JSON after the marker is text, and the next frame still decodes", () => {
    const r = reader();
    expect(r.push(RS + NONCE + "{not json\n" + line(messages[1]))).toEqual([{ text: RS + NONCE + "{not json\n" }, messages[1]]);
  });

  test("an unknown frame type between two known ones is skipped", () => {
    expect(reader().push(line(messages[0]) + line({ t: "future", x: 1 }) + line(messages[1]))).toEqual([messages[0], undefined, messages[1]]);
  });
});

describe("decodeHostAnswer", () => {
  test("a value and an error answer decode", () => {
    expect(decodeHostAnswer('{"id":3,"ok":true,"value":{"a":1}}')).toEqual({ id: 3, ok: true, value: { a: 1 } });
    expect(decodeHostAnswer('{"id":4,"ok":false,"error":{"name":"Error","message":"no"}}')).toEqual({
      id: 4,
      ok: false,
      error: { name: "Error", message: "no" },
    });
  });

  test.each(["", "not json", "[]", '{"ok":true}', '{"id":-1,"ok":true}', '{"id":1}', '{"id":1,"ok":false,"error":"x"}'])("%j is not an answer", (text) => {
    expect(decodeHostAnswer(text)).toBeUndefined();
  });
});

describe("decodeHandoff", () => {
  const handoff: Handoff = {
    host: 42,
    sock: "/run/mcpx/r.sock",
    token: "t0k3n",
    nonce: "n0Nc3",
    runId: "run-1",
    servers: [
      { name: "fake", global: "fake" },
      { name: "console", global: null },
    ],
    script: { path: "/p/a.ts", name: "a.ts", args: ["x"] },
  };

  test("the handoff the host writes is the handoff the launcher reads", () => {
    expect(decodeHandoff(JSON.stringify(handoff))).toEqual(handoff);
  });

  test.each([
    ["", "nothing to read"],
    ["{", "not a JSON object"],
    [JSON.stringify({ ...handoff, token: "" }), "token is not a string"],
    [JSON.stringify({ ...handoff, servers: [["fake", "fake"]] }), "servers is not a list of {name, global}"],
    [JSON.stringify({ ...handoff, script: { path: "/p" } }), "script is not {path, name, args}"],
  ])("%j is refused, naming what is wrong", (text, why) => {
    expect(() => decodeHandoff(text)).toThrow(`(${why})`);
  });
});
