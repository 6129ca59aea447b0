// Plugins: a manifest brings a server and hooks; the hooks are in force while that server's session
// lives, show their origin, and are dropped when the session ends.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, fakeServer, sandbox } from "./harness.ts";
import { expectExit, fileExists, mcpx, parseFrames, scriptAwaits, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() }, plugins: [join(ROOT, "fixtures/plugins/guard")] });

describe("a plugin", () => {
  test("its hook runs on the calls it matches, while its server lives", async () => {
    const r = await mcpx(sb, ["exec", "--output", "stream", 'console.log(await fake.echo({ message: "hi" }))']);
    expectExit(r, 0);
    const hooks = parseFrames(r.stdout).filter((f) => f.type === "hook");
    expect(hooks.map((h) => [h.name, h.phase, h.advice])).toEqual([["guard-advice", "before", ["guard is watching"]]]);
  });

  test("its hooks are listed with the plugin as their origin", async () => {
    const r = await mcpx(sb, ["hooks", "list", "--json"]);
    expectExit(r, 0);
    const { hooks } = JSON.parse(r.stdout) as { hooks: Array<{ name: string; origin: string }> };
    const mine = hooks.find((h) => h.name === "guard-advice");
    expect(mine?.origin).toContain("plugin guard");
    expect(mine?.origin).toContain("mcpx-plugin.json");
  });

  test("when its server dies, its hook starts it again the next time it fires, and runs", async () => {
    // FAKE_MCP_CRASH_ON=slow in the manifest: calling guard.slow ends the plugin's server. An observe
    // hook on server.stopped writes the event to a file, and the script goes on only once that file
    // is there, so the second echo is gated after the crash has reached mcpx.
    const stopped = join(sb.dir, `guard-stopped-${process.pid}.json`);
    const config = writeConfig(sb, "plugin-stops.json", {
      mcpServers: { fake: fakeServer() },
      plugins: [join(ROOT, "fixtures/plugins/guard")],
      hooks: [
        {
          name: "see-guard-stop",
          on: "server.stopped",
          phase: "observe",
          when: { server: "guard" },
          run: ["sh", "-c", 'cat > "$0.tmp" && mv "$0.tmp" "$0"', stopped],
        },
      ],
    });
    const script = [
      'await fake.echo({ message: "1" });',
      "await guard.slow({ ms: 1 }).catch(() => {});",
      scriptAwaits(fileExists(stopped), "server.stopped for guard"),
      'await fake.echo({ message: "2" });',
    ].join("\n");
    const r = await mcpx(sb, ["exec", "--config", config, "--output", "stream", script]);
    expectExit(r, 0);
    // the last server.stopped is the pool's close at the end (the restarted server), so only the kind is pinned
    expect(JSON.parse(readFileSync(stopped, "utf8")).event).toMatchObject({ kind: "server.stopped", data: { server: "guard" } });
    const frames = parseFrames(r.stdout);
    const calls = frames
      .filter((f) => f.type === "call" || (f.type === "hook" && f.name === "guard-advice"))
      .map((f) =>
        f.type === "call" ? `call ${f.server}.${f.tool}${f.by ? ` by ${f.by}` : ""}` : `guard-advice ${f.failed ? "failed" : (f.advice as string[]).join()}`,
      );
    // the hook's own call of guard.echo passes the gate and leaves its call frame before the hook's
    expect(calls).toEqual([
      "call guard.echo by guard-advice",
      "guard-advice guard is watching",
      "call fake.echo",
      "call guard.slow",
      "call guard.echo by guard-advice",
      "guard-advice guard is watching",
      "call fake.echo",
    ]);
  });

  test("a closed guard whose plugin server cannot start is a hook failure that refuses the call, reported on stderr", async () => {
    const dir = join(sb.dir, "broken-guard");
    sb.write(
      "broken-guard/mcpx-plugin.json",
      JSON.stringify({
        name: "broken",
        server: { command: "false" },
        hooks: [{ name: "must-ask-broken", on: "call", phase: "before", plugin: "broken.echo", effect: "refuse", failure: "closed" }],
      }),
    );
    const record = join(sb.dir, "broken-guard.jsonl");
    const config = writeConfig(sb, "broken-guard.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }) }, plugins: [dir] });
    const r = await mcpx(sb, [
      "exec",
      "--config",
      config,
      'try { await fake.echo({ message: "guarded" }); console.log("went through") } catch (e) { console.log("refused: " + e.code) }',
    ]);
    expectExit(r, 0);
    expect(r.stdout).toBe("refused: REFUSED\n");
    expect(r.stderr).toContain("hook must-ask-broken");
    expect(r.stderr).toContain("plugin broken's server is not running and could not be started");
    // the server never saw the call
    expect(existsSync(record) ? readFileSync(record, "utf8") : "").not.toContain('"tool":"echo"');
  });

  test("a plugin whose manifest is missing is a config error before anything runs", async () => {
    const other = sandbox();
    writeConfig(other, ".mcpx.json", { plugins: ["./nowhere"] });
    const r = await mcpx(other, ["exec", "console.log(1)"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("mcpx-plugin.json");
    expect(r.stdout).toBe("");
  });
});
