// Small things a user types and reads: the sandbox's refusal names mcpx's setting rather than a Deno
// flag, `mcpx help CMD` is that command's help, and a bool setting's flag is a switch that never
// swallows the next word.

import { describe, expect, test } from "bun:test";
import { sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

const sb = sandbox();
const secret = sb.write("outside/secret.txt", "the-secret-text");

describe.concurrent("what the CLI says", () => {
  test("the sandbox's refusal names exec.sandboxAllow with the path, not Deno's --allow-read flag", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--sandbox",
      "on",
      "--sandbox-engine",
      "deno",
      `return (await import("node:fs")).readFileSync(${JSON.stringify(secret)}, "utf8")`,
    ]);
    expectExit(r, 1);
    expect(r.stderr).toContain(`exec.sandboxAllow setting, e.g. {"read": ["${secret}"]}`);
    expect(r.stderr).not.toContain("--allow-read");
  });

  test("mcpx help run prints run's help, as mcpx run --help does", async () => {
    const [help, flag] = await Promise.all([mcpx(sb, ["help", "run"]), mcpx(sb, ["run", "--help"])]);
    expectExit(help, 0);
    expect(help.stdout).toContain("USAGE mcpx run");
    expect(help.stdout).toBe(flag.stdout);
  });

  test("--exec-auto-install is a switch: the snippet after it is the snippet, and =false still works", async () => {
    const on = await mcpx(sb, ["exec", "--exec-auto-install", "return 'ran'"]);
    expectExit(on, 0);
    expect(on.stdout).toBe("ran\n");
    const off = await mcpx(sb, ["settings", "get", "exec.autoInstall", "--exec-auto-install=false"]);
    expect(off.stdout).toContain("value: false  ← flag:--exec-auto-install");
  });

  test("mcpx settings get remote --remote shows the switch's value instead of asking for one", async () => {
    const r = await mcpx(sb, ["settings", "get", "remote", "--remote"]);
    expectExit(r, 0);
    expect(r.stdout).toContain("value: true  ← flag:--remote");
  });
});
