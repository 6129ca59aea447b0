// A guard in force on the caller's side is carried to the daemon or the command fails with
// exit 2 naming it, never dropped in silence. `MCPX_REMOTE=1 mcpx call` (and `call --remote`,
// `exec --remote`, `run --remote`) carry the caller's call hooks, from its config, MCPX_HOOKS or
// --hooks, and the daemon applies them to that call or run only; a hook that cannot travel
// (server.start) fails the command. The daemon here has no guard of its own.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fakeServer, sandbox } from "./harness.ts";
import { recordedCalls, say } from "./hooks-support.ts";
import { mcpx, writeConfig } from "./support.ts";
import { startDaemon, stopDaemons } from "./daemon-support.ts";

const sb = sandbox();
// one daemon for callers in other directories (other config chains): they name its address
const SHARED = join(sb.dir, "shared.sock");
sb.env.MCPX_DAEMON_ADDRESS = SHARED;
const record = join(sb.dir, "daemon-record.jsonl");
const GUARD = {
  name: "no-delete",
  on: "call",
  phase: "before",
  when: { tool: "delete_item" },
  run: say({ refuse: "deleting is not allowed here" }),
  effect: "refuse",
};
// the daemon's own config has the server and no hooks; the caller's has the guard
writeConfig(sb, "daemon/.mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) } });
writeConfig(sb, "caller/.mcpx.json", { hooks: [GUARD] });
writeConfig(sb, "plain/.mcpx.json", {});
writeConfig(sb, "starter/.mcpx.json", { hooks: [{ name: "start-guard", on: "server.start", phase: "before", run: say({}), effect: "refuse" }] });
const at = (dir: string) => join(sb.dir, dir);

afterAll(stopDaemons);
beforeAll(async () => {
  await startDaemon(sb, [], { cwd: at("daemon") });
});

const deletes = () => recordedCalls(record).filter((c) => c.tool === "delete_item");

describe("a caller's guard travels with --remote", () => {
  test("MCPX_REMOTE=1 mcpx call is refused by the caller's config guard, and the daemon's server never sees the call", async () => {
    const r = await mcpx(sb, ["call", "fake.delete_item", "id=x"], { cwd: at("caller"), env: { MCPX_REMOTE: "1" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refused by hook no-delete: deleting is not allowed here");
    expect(deletes()).toEqual([]);
  });

  test("the same guard from MCPX_HOOKS and from --hooks is carried too", async () => {
    const env = await mcpx(sb, ["call", "--remote", "fake.delete_item", "id=x"], { cwd: at("plain"), env: { MCPX_HOOKS: JSON.stringify([GUARD]) } });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain("refused by hook no-delete");
    const flag = await mcpx(sb, ["call", "--remote", "--hooks", JSON.stringify([GUARD]), "fake.delete_item", "id=x"], { cwd: at("plain") });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain("refused by hook no-delete");
    expect(deletes()).toEqual([]);
  });

  test("exec --remote carries the caller's call guard: the script's call is refused", async () => {
    const r = await mcpx(sb, ["exec", "--remote", 'await fake.delete_item({ id: "x" })'], { cwd: at("caller") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refused by hook no-delete");
    expect(deletes()).toEqual([]);
  });

  test("run --remote carries it too", async () => {
    const file = sb.write("caller/del.ts", 'export default async () => fake.delete_item({ id: "x" });\n');
    const r = await mcpx(sb, ["run", "--remote", file], { cwd: at("caller") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("refused by hook no-delete");
    expect(deletes()).toEqual([]);
  });

  test("without a guard the same remote call goes through (the daemon itself refuses nothing)", async () => {
    const r = await mcpx(sb, ["call", "--remote", "fake.delete_item", "id=y"], { cwd: at("plain") });
    expect(r.code).toBe(0);
    expect(deletes().map((c) => c.args)).toEqual([{ id: "y" }]);
  });

  test("a server.start hook in force here cannot travel: the remote command fails with exit 2 naming it", async () => {
    const r = await mcpx(sb, ["call", "--remote", "fake.echo", "message=hi"], { cwd: at("starter") });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hook start-guard");
    expect(r.stderr).toContain("is on server.start.before, which cannot travel with --remote");
  });
});
