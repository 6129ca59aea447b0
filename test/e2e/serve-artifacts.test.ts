// The artifacts an agent's run makes (artifact(name, data)) come back in mcpx_exec's answer as MCP
// content, through the binary with the SDK's own client: after the run's text, in the order made,
// text as text, bytes as an embedded resource, a PNG as image content, each byte for byte; one that
// does not fit in mcp.maxAnswer beside the rest is a resource_link the same session reads whole
// with resources/read, and the answer says so. No answer passes the cap. A link is the session's
// own: another serve session, or another /mcp session of the daemon, gets "not found" for it.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fakeServer, sandbox } from "./harness.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";
import { serve, writeConfig, type Served } from "./support.ts";

type Result = CallToolResult & { structuredContent?: { ok?: boolean; artifacts?: Array<{ name: string; uri: string; size: number }> } };
type Item = Result["content"][number];
/** what the answer weighs on the wire, as the client's 10 MiB check counts it */
const wireBytes = (r: Result) => Buffer.byteLength(JSON.stringify(r));
const MiB = 1024 * 1024;

/** a 1×1 PNG, valid: signature, IHDR, IDAT, IEND */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const BYTES = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));
const BIG = "0123456789".repeat(300_000);
const MAKES_FOUR = [
  'await artifact("one.txt", "x");',
  `const bin = new Uint8Array(${BYTES.length}); for (let i = 0; i < bin.length; i++) bin[i] = i % 256;`,
  'await artifact("bytes.bin", bin, { mime: "application/octet-stream" });',
  `await artifact("dot.png", new Uint8Array(${JSON.stringify([...PNG])}), { mime: "image/png" });`,
  'await artifact("big.txt", "0123456789".repeat(300_000));',
  'export default () => "made"',
].join("\n");

const sb = sandbox();
// a server named `artifact`: its resources and the artifact links must not shadow each other
writeConfig(sb, ".mcpx.json", { mcpServers: { artifact: fakeServer({ FAKE_MCP_FEATURES: "1" }) } });

const exec = async (client: Client, source: string) =>
  (await client.callTool({ name: "mcpx_exec", arguments: { source } }, undefined, { timeout: 120_000 })) as Result;
const linkOf = (item: Item | undefined) => {
  expect(item?.type).toBe("resource_link");
  return (item as { uri: string }).uri;
};

let s: Served;
let answer: Result;
beforeAll(async () => {
  s = await serve(sb);
  answer = await exec(s.client, MAKES_FOUR);
}, 180_000);
afterAll(async () => {
  await s?.close();
  await stopDaemons();
});

describe("mcpx serve: artifacts in mcpx_exec's answer", () => {
  test("the run's text stays first and unchanged, and each artifact follows in the order made, byte for byte by its type", () => {
    expect(answer.isError).toBe(false);
    expect(answer.content[0]).toEqual({ type: "text", text: 'result: "made"' });
    expect(answer.content[1]).toEqual({ type: "text", text: "x" });
    const bin = answer.content[2] as Extract<Item, { type: "resource" }>;
    expect(bin.type).toBe("resource");
    expect(bin.resource.mimeType).toBe("application/octet-stream");
    expect(Buffer.from((bin.resource as { blob: string }).blob, "base64").equals(BYTES)).toBe(true);
    expect(answer.content[3]).toEqual({ type: "image", data: PNG.toString("base64"), mimeType: "image/png" });
  });

  test("the 3 MB artifact, over the default 1 MiB mcp.maxAnswer, is a resource_link, the answer says why, and the whole answer is within the cap", () => {
    const link = answer.content[4] as { type: string; uri: string; name: string; size: number; mimeType: string };
    expect(link).toMatchObject({ type: "resource_link", name: "big.txt", size: BIG.length, mimeType: "text/plain;charset=utf-8" });
    expect(link.uri).toStartWith("mcpx:artifact/");
    const note = answer.content[5] as { type: string; text: string };
    expect(note.type).toBe("text");
    expect(note.text).toContain(`"big.txt" (3000000 bytes, ${link.uri})`);
    expect(note.text).toContain("mcp.maxAnswer (1048576 bytes)");
    expect(note.text).toContain("resources/read");
    expect(answer.content).toHaveLength(6);
    expect(wireBytes(answer)).toBeLessThanOrEqual(MiB);
  });

  test("structuredContent is the envelope, its artifacts listed in order at the links the answer uses", () => {
    const listed = answer.structuredContent!.artifacts!;
    expect(listed.map((a) => a.name)).toEqual(["one.txt", "bytes.bin", "dot.png", "big.txt"]);
    expect(listed.every((a) => a.uri.startsWith("mcpx:artifact/"))).toBe(true);
    expect((answer.content[2] as { resource: { uri: string } }).resource.uri).toBe(listed[1]!.uri);
    expect(linkOf(answer.content[4])).toBe(listed[3]!.uri);
  });

  test("resources/read of the link gives the 3 MB byte for byte, as text; a binary artifact's gives a blob", async () => {
    const big = await s.client.readResource({ uri: linkOf(answer.content[4]) }, { timeout: 120_000 });
    expect(big.contents).toHaveLength(1);
    expect(big.contents[0]).toMatchObject({ uri: linkOf(answer.content[4]), mimeType: "text/plain;charset=utf-8" });
    expect((big.contents[0] as { text: string }).text === BIG).toBe(true);
    const uri = answer.structuredContent!.artifacts![1]!.uri;
    const bin = await s.client.readResource({ uri });
    expect(Buffer.from((bin.contents[0] as { blob: string }).blob, "base64").equals(BYTES)).toBe(true);
  });

  test("a server named `artifact` keeps its resources, templates included, beside the links", async () => {
    const note = await s.client.readResource({ uri: "mcpx://artifact/fake%3A%2F%2Fnote" });
    expect(note.contents[0]).toMatchObject({ text: "a note from fake" });
    const item = await s.client.readResource({ uri: "mcpx://artifact/fake%3A%2F%2Fitems%2F7" });
    expect(item.contents[0]).toMatchObject({ text: "item 7" });
  });

  test("another serve session cannot read the first one's link: it is not found, as an unknown one is, naming the uri", async () => {
    const other = await serve(sb);
    try {
      const uri = linkOf(answer.content[4]);
      await expect(other.client.readResource({ uri })).rejects.toThrow(`"${uri}" names no artifact of this session`);
      await expect(s.client.readResource({ uri: "mcpx:artifact/no-such-run.1" })).rejects.toThrow(
        '"mcpx:artifact/no-such-run.1" names no artifact of this session',
      );
    } finally {
      await other.close();
    }
  });

  test("a loud run keeps room for its artifacts: the output is cut, a small artifact is inline, larger ones linked, within the cap", async () => {
    // the links' room is kept before the output is cut: without it the cut output filled the cap and
    // the forty links and the note took the answer past it (by 9 kB when this was written)
    const r = await exec(
      s.client,
      [
        'console.log("y".repeat(2_000_000));',
        'await artifact("small.txt", "hi");',
        "for (let i = 1; i <= 40; i++) await artifact(`part-${i}.txt`, String(i % 10).repeat(20_000));",
        "export default () => 1",
      ].join("\n"),
    );
    expect(wireBytes(r)).toBeLessThanOrEqual(MiB);
    expect((r.content[0] as { text: string }).text).toContain("stdout: 2000001 bytes");
    // an item smaller than its link is always inline: it takes less room than linking it would
    expect(r.content[1]).toEqual({ type: "text", text: "hi" });
    const links = r.content.slice(2, 42).map(linkOf);
    const read = await s.client.readResource({ uri: links[6]! });
    expect(read.contents[0]).toMatchObject({ text: "7".repeat(20_000) });
    expect((r.content[42] as { text: string }).text).toContain("40 artifacts are linked rather than included");
  }, 180_000);

  test("with MCPX_MCP_MAX_ANSWER raised, the 3 MB text comes back inline and nothing is linked", async () => {
    const max = 8 * MiB;
    const raised = await serve(sb, { MCPX_MCP_MAX_ANSWER: String(max) });
    try {
      const r = await exec(raised.client, MAKES_FOUR);
      expect(r.content).toHaveLength(5);
      expect(r.content.some((c) => c.type === "resource_link")).toBe(false);
      expect((r.content[4] as { type: string; text: string }).type).toBe("text");
      expect((r.content[4] as { text: string }).text === BIG).toBe(true);
      expect(wireBytes(r)).toBeLessThanOrEqual(max);
    } finally {
      await raised.close();
    }
  }, 180_000);
});

describe("the daemon's /mcp: artifacts and their links", () => {
  test("a link is read by the session whose run made it, and by no other session", async () => {
    const token = "artifacts-e2e-" + Math.random().toString(36).slice(2);
    const daemon = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: token } });
    const connect = async () => {
      const c = new Client({ name: "artifacts-e2e", version: "0" });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${daemon.address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return c;
    };
    const [mine, theirs] = [await connect(), await connect()];
    try {
      const r = await exec(mine, 'await artifact("big.txt", "0123456789".repeat(300_000));\nexport default () => "made"');
      expect(wireBytes(r)).toBeLessThanOrEqual(MiB);
      const uri = linkOf(r.content[1]);
      expect((r.content[2] as { text: string }).text).toContain("mcp.maxAnswer (1048576 bytes)");
      const read = await mine.readResource({ uri }, { timeout: 120_000 });
      expect((read.contents[0] as { text: string }).text === BIG).toBe(true);
      await expect(theirs.readResource({ uri })).rejects.toThrow(`"${uri}" names no artifact of this session`);
    } finally {
      await mine.close();
      await theirs.close();
    }
  }, 180_000);
});
