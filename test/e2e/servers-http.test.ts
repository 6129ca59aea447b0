// Streamable HTTP upstream servers: a config entry with `url` (and `headers`) reaches the same
// generated client as a stdio one.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FAKE_SERVER, sandbox } from "./harness.ts";
import { expectExit, httpFixture, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
let server: Awaited<ReturnType<typeof httpFixture>>;
let url = "";

beforeAll(async () => {
  server = await httpFixture(FAKE_SERVER, { ...sb.env, FAKE_MCP_HTTP_PORT: "0" });
  url = server.url;
  writeConfig(sb, ".mcpx.json", { mcpServers: { web: { url, headers: { "X-Test": "${HOME}" } } } });
});

afterAll(() => server.stop());

describe("a Streamable HTTP server", () => {
  test("a script calls its tools through the url entry, with results unwrapped", async () => {
    const r = await mcpx(sb, ["exec", 'console.log(await web.echo({ message: "over http" })); console.log(JSON.stringify(await web.add({ a: 2, b: 3 })))']);
    expectExit(r, 0);
    expect(r.stdout).toBe('over http\n{"sum":5}\n');
  });

  test("mcpx ls counts its tools without the lifecycle hook tools", async () => {
    const r = await mcpx(sb, ["ls", "--json"]);
    expectExit(r, 0);
    const [row] = JSON.parse(r.stdout) as Array<{ server: string; count: number; tools: Array<{ name: string }> }>;
    expect(row!.server).toBe("web");
    expect(row!.tools.some((t) => t.name.startsWith("_"))).toBe(false);
    expect(row!.count).toBe(row!.tools.length);
  });
});
