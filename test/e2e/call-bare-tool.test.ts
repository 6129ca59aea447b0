// `mcpx call TOOL`: with one server in scope (an ad-hoc --stdio server, or a config's only server) a
// bare tool name is that server's; with more, the refusal names them and shows the SERVER.TOOL form.

import { describe, expect, test } from "bun:test";
import { BUN, FAKE_SERVER, fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

describe.concurrent("a bare tool name", () => {
  test("resolves to the ad-hoc --stdio server, even beside configured ones", async () => {
    const sb = sandbox();
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { other: fakeServer() } }));
    const r = await mcpx(sb, ["call", "--stdio", `${BUN} ${FAKE_SERVER}`, "echo", "message=hi"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("hi\n");
  });

  test("resolves to a config's only server", async () => {
    const sb = sandbox();
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { only: fakeServer() } }));
    const r = await mcpx(sb, ["call", "echo", "message=hi"]);
    expectExit(r, 0);
    expect(r.stdout).toBe("hi\n");
  });

  test("with two servers configured is refused, naming them and the form to use", async () => {
    const sb = sandbox();
    sb.write(".mcpx.json", JSON.stringify({ mcpServers: { a: fakeServer(), b: fakeServer() } }));
    const r = await mcpx(sb, ["call", "echo", "message=hi"]);
    expectExit(r, 2);
    expect(r.stderr).toContain('"echo" is not SERVER.TOOL');
    expect(r.stderr).toContain("there are 2: a, b");
    expect(r.stderr).toContain("a.echo");
  });
});
