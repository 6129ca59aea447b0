// What a failed `mcpx call` says: an unknown server is a wrong request (exit 2, as `mcpx ls NAME`),
// and `--json` prints a failed call's error with its code.

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

const sb = sandbox();
sb.write(".mcpx.json", JSON.stringify({ mcpServers: { fake: fakeServer() } }));

describe.concurrent("mcpx call failures", () => {
  test("an unknown server exits 2, as `mcpx ls` of one does, with the did-you-mean", async () => {
    const [call, ls] = await Promise.all([mcpx(sb, ["call", "fak.echo", "message=hi"]), mcpx(sb, ["ls", "fak"])]);
    expectExit(call, 2);
    expectExit(ls, 2);
    expect(call.stderr).toContain('unknown server "fak" (did you mean fake?)');
  });

  test("--json: an unknown tool's error carries its code", async () => {
    const r = await mcpx(sb, ["call", "--json", "fake.nosuch"]);
    expectExit(r, 1);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { name: "UnknownToolError", code: "UNKNOWN_TOOL" } });
  });
});
