// An error thrown by a phase line names the phase, the line and where the line came from (a flag,
// a variable, a config file's line, a request body), on every door and in every output mode; an
// error the script itself threw is reported as it was thrown.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { MCPX, sandbox } from "./harness.ts";
import { execEnvelope, startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";
import { expectExit, mcpx, parseFrames } from "./support.ts";

const sb = sandbox();
// the config's script.suffix line sits on line 4 of the file: the origin must say so
sb.write(".mcpx.json", "{}\n");
const CONFIG = sb.write("configured/.mcpx.json", ["{", '  "script": {', '    "suffix": [', '      "configured()"', "    ]", "  }", "}", ""].join("\n"));
sb.write("ok.ts", "export default () => 1\n");
sb.write("configured/ok.ts", "export default () => 1\n");
const CONFIGURED = join(sb.dir, "configured");

describe.concurrent("phase errors name their origin", () => {
  test("a flag line: the phase, the line number among that phase's lines and the flag", async () => {
    const r = await mcpx(sb, ["run", "--before", "1", "--before", "foo()", "ok.ts"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("ReferenceError: foo is not defined (script.before line 2, from --before)");
  });

  test("a variable's line names the variable", async () => {
    const r = await mcpx(sb, ["run", "ok.ts"], { env: { MCPX_SCRIPT_PREFIX: "1\nfromEnv()" } });
    expectExit(r, 1);
    expect(r.stderr).toContain("fromEnv is not defined (script.prefix line 2, from MCPX_SCRIPT_PREFIX)");
  });

  test("a config file's line names the file and the line it is written on, as mcpx settings get shows it", async () => {
    // a suffix cannot change the outcome: its error is reported as an error log, and the run succeeds
    const r = await mcpx(sb, ["run", "ok.ts"], { cwd: CONFIGURED });
    expectExit(r, 0);
    expect(r.stderr).toContain(`configured is not defined (script.suffix line 1, from ${CONFIG}:4)`);
    const s = await mcpx(sb, ["settings", "get", "script.suffix"], { cwd: CONFIGURED });
    expect(s.stdout).toContain(`"configured()"  ← file:${CONFIG}:4`);
  });

  test("an onError line that throws is named beside the body's own error, and the body's error, rethrown as it is, is not", async () => {
    const named = await mcpx(sb, ["exec", "--on-error", "bar()", 'throw new Error("body broke")']);
    expectExit(named, 1);
    expect(named.stderr).toContain("bar is not defined (script.onError line 1, from --on-error)");
    expect(named.stderr).toContain("Error: body broke");
    const rethrown = await mcpx(sb, ["exec", "--on-error", "throw result.error", 'throw new Error("body broke")']);
    expectExit(rethrown, 1);
    expect(rethrown.stderr).toContain("Error: body broke");
    expect(rethrown.stderr).not.toContain("script.onError");
  });

  test("a thrown string is reported with its origin too", async () => {
    const r = await mcpx(sb, ["exec", "--prefix", 'throw "plain text"', "1"]);
    expectExit(r, 1);
    expect(r.stderr).toContain("plain text (script.prefix line 1, from --prefix)");
  });

  test("the --json envelope and the --output stream error frame carry the same message", async () => {
    const args = ["exec", "--on-success", "baz()", "1"];
    const json = JSON.parse((await mcpx(sb, [...args, "--json"])).stdout);
    expect(json.error.message).toBe("baz is not defined (script.onSuccess line 1, from --on-success)");
    const frames = parseFrames((await mcpx(sb, [...args, "--output", "stream"])).stdout);
    expect(frames.find((f) => f.type === "error")).toMatchObject({
      error: { name: "ReferenceError", message: "baz is not defined (script.onSuccess line 1, from --on-success)" },
    });
  });
});

describe("phase errors name their origin on the daemon and mcpx_exec doors", () => {
  let daemon: Daemon;
  let client: Client;
  beforeAll(async () => {
    daemon = await startDaemon(sb, [], { cwd: CONFIGURED });
    client = new Client({ name: "phase-origins", version: "1" });
    await client.connect(new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" }));
  });
  afterAll(async () => {
    await client?.close();
    await stopDaemons();
  });

  test("POST /v1/exec names its body for the lines it sent and the daemon's config for a phase it left out", async () => {
    const sent = await execEnvelope(daemon, { source: "1", script: { before: ["sent()"], suffix: [] } });
    expect(sent.error?.message).toBe("sent is not defined (script.before line 1, from the POST /v1/exec body)");
    const configured = await execEnvelope(daemon, { source: "1" });
    expect(configured.error).toBeNull();
    expect(JSON.stringify(configured.logs)).toContain(`configured is not defined (script.suffix line 1, from ${CONFIG}:4)`);
  });

  test("mcpx_exec names its arguments", async () => {
    const r = (await client.callTool({ name: "mcpx_exec", arguments: { source: "1", script: { prefix: ["viaMcp()"] } } })) as unknown as {
      structuredContent: { error: { message: string } };
    };
    // V8 says "viaMcp is not defined", QuickJS (the sandbox mcpx_exec runs on by default) "'viaMcp' is not defined"
    expect(r.structuredContent.error.message).toMatch(/^'?viaMcp'? is not defined \(script\.prefix line 1, from the mcpx_exec arguments\)$/);
  });
});
