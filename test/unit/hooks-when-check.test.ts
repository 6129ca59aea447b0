// A hook whose `when` names nothing configured loads and never fires; these checks say so, with a
// did-you-mean (lib/hooks/when-check.ts). Both spellings of a name count as naming it.

import { describe, expect, test } from "bun:test";
import type { Hook } from "../../lib/hooks/hook.ts";
import { unmatchedServers, unmatchedTools } from "../../lib/hooks/when-check.ts";

const hook = (when: Hook["when"], on = "call"): Hook => ({
  name: "guard",
  on,
  phase: "before",
  action: { kind: "run", argv: ["true"] },
  when,
  effect: "refuse",
  failure: "open",
  origin: "/x/.mcpx.json hooks[0]",
});

describe("unmatchedServers", () => {
  test("a server named by its config name, its identifier spelling, or a glob that matches one is not reported", () => {
    expect(unmatchedServers([hook({ server: "my-srv" }), hook({ server: "my_srv" }), hook({ server: "my*" }), hook({})], ["my-srv"])).toEqual([]);
  });

  test("a misspelt server is reported with the hook, its origin, the configured servers and a did-you-mean", () => {
    expect(unmatchedServers([hook({ server: "my-svr" })], ["my-srv", "other"])).toEqual([
      'hook guard (/x/.mcpx.json hooks[0]): when.server "my-svr" names no configured server (did you mean my-srv?), ' +
        "so it never fires (configured: my-srv, other)",
    ]);
  });

  test("a glob that matches no server is reported, without a guess", () => {
    expect(unmatchedServers([hook({ server: "prod-*" })], ["dev"])[0]).toContain('when.server "prod-*" names no configured server, so it never fires');
  });
});

describe("unmatchedTools", () => {
  test("a tool named by either spelling is not reported; hooks for other servers are not judged by this server's tools", () => {
    const tools = ["get-sum", "echo"];
    expect(
      unmatchedTools(
        [hook({ server: "fake", tool: "get_sum" }), hook({ server: "fake", tool: "get-sum" }), hook({ server: "other", tool: "nope" })],
        "fake",
        tools,
      ),
    ).toEqual([]);
  });

  test("a misspelt tool of a server whose list is known is reported with a did-you-mean", () => {
    expect(unmatchedTools([hook({ server: "fake", tool: "ecoh" })], "fake", ["echo", "add"])).toEqual([
      'hook guard (/x/.mcpx.json hooks[0]): when.tool "ecoh" names no tool server fake lists (did you mean echo?), so it never fires there',
    ]);
  });
});
