// A guard whose `when` names a server by the identifier scripts use (`my_srv` for server
// `my-srv`) fires, and one that names no configured server, or a tool its server does not list, is
// reported on stderr with a did-you-mean instead of loading in silence and never firing.

import { describe, expect, test } from "bun:test";
import { fakeServer } from "./harness.ts";
import { execText, expectExit, hookSandbox, recordedCalls, recordPath, say, tryCall } from "./hooks-support.ts";

const sb = hookSandbox({ "my-srv": fakeServer() });
const guard = (when: Record<string, string>) => ({ name: "guard", on: "call", phase: "before", when, run: say({ refuse: "not this one" }), effect: "refuse" });

describe.concurrent("a guard's when", () => {
  test("when.server written as the identifier (my_srv) guards server my-srv", async () => {
    const record = recordPath(sb);
    const r = await execText(sb, tryCall('my_srv.echo({ message: "hi" })'), { record, hooks: [guard({ server: "my_srv", tool: "echo" })] });
    expectExit(r, 0);
    expect(r.stdout).toContain("refused by hook guard: not this one");
    expect(recordedCalls(record)).toEqual([]);
  });

  test("a when.server naming no configured server is said on stderr with a did-you-mean", async () => {
    const r = await execText(sb, "return 1", { hooks: [guard({ server: "my-svr" })] });
    expectExit(r, 0);
    expect(r.stderr).toContain('when.server "my-svr" names no configured server (did you mean my-srv?), so it never fires');
  });

  test("a when.tool its server does not list is said on stderr with a did-you-mean once the tool list is read", async () => {
    const r = await execText(sb, 'await fake.echo({ message: "hi" })', { hooks: [guard({ server: "fake", tool: "ecoh" })] });
    expectExit(r, 0);
    expect(r.stderr).toContain('when.tool "ecoh" names no tool server fake lists (did you mean echo?), so it never fires there');
  });
});
