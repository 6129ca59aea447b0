// What mcpx leaves behind when it exits, seen by the one who inherits it: each command runs as the
// child of a subreaper (left-to-init.ts), which gets every process mcpx neither ended nor reaped,
// zombies included; under a container's init those would stay. Every way a command ends is here: a
// run that took the runtime started early, one whose config wants another runtime, a usage error
// after that runtime started, a script that exits with a code, a run ended by its timeout, a one-shot call.

import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, MCPX, fakeServer, sandbox } from "./harness.ts";
import { writeConfig } from "./support.ts";

const HELPER = join(import.meta.dir, "left-to-init.ts");

/** a script that starts `sleep 300` in a session of its own, lets go of it, and returns */
const DETACH_AND_RETURN = ['import { spawn } from "node:child_process";', 'spawn("sleep", ["300"], { stdio: "ignore", detached: true }).unref();'].join("\n");

/** a script that starts `sleep 300` in its own group, says so, and waits forever */
const SPAWN_AND_WAIT = [
  'import { spawn } from "node:child_process";',
  'spawn("sleep", ["300"], { stdio: "ignore" });',
  'console.log("[spawned]");',
  "await new Promise(() => setInterval(() => {}, 1 << 30));",
].join("\n");

const SERVERS = {
  fake: fakeServer(),
  detaching: fakeServer({ FAKE_MCP_DETACH: "1" }),
  crashing: fakeServer({ FAKE_MCP_DETACH: "1", FAKE_MCP_CRASH_ON: "echo" }),
};

interface Left {
  code: number;
  left: Array<{ pid: number; state: string; cmd: string }>;
  stderr: string;
}

/** @param signal sent to mcpx once its stdout shows `when` */
async function underSubreaper(cwd: string, env: Record<string, string>, args: string[], signal?: { sig: string; when: string; on?: "stderr" }): Promise<Left> {
  const out = mkdtempSync(join(cwd, "out-"));
  const helperEnv = signal ? { ...env, LEFT_SIGNAL: `${signal.sig}:${signal.when}`, LEFT_SIGNAL_ON: signal.on ?? "stdout" } : env;
  const p = Bun.spawn([BUN, HELPER, out, MCPX, ...args], { cwd, env: helperEnv, stdout: "pipe", stderr: "pipe" });
  const [text, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const report = JSON.parse(text.trim() || `{"helper": ${JSON.stringify(err)}}`);
  return { ...report, stderr: existsSync(join(out, "stderr")) ? readFileSync(join(out, "stderr"), "utf8") : "" };
}

describe.concurrent("mcpx leaves nothing to whoever inherits its children, not even a zombie", () => {
  const cases: Array<[string, string[], number, Record<string, unknown>?, { sig: string; when: string; on?: "stderr" }?]> = [
    ["an exec that takes the runtime started early", ["exec", "console.log(1)"], 0],
    ["a usage error after the runtime was started early", ["exec", "", "--no-such-flag"], 2],
    ["a run script that is not there, after the runtime was started early", ["run", "missing.ts"], 2],
    ["an exec whose config wants Node, so the runtime started early is ended unused", ["exec", ""], 0, { script: { runtime: "node" } }],
    ["a script that exits with its own code", ["exec", "process.exit(3)"], 3],
    // the run is ended while its runtime still lives: the sleep it started dies its child, then is ours
    ["a run past its timeout, whose script started a child", ["exec", "--timeout", "300ms", SPAWN_AND_WAIT], 124],
    ["a Deno run past its timeout, whose script started a child", ["exec", "--runtime", "deno", "--timeout", "2s", SPAWN_AND_WAIT], 124],
    ["a Node run past its timeout, whose script started a child", ["exec", "--runtime", "node", "--timeout", "1s", SPAWN_AND_WAIT], 124],
    ["a script that starts a detached child and returns", ["exec", DETACH_AND_RETURN], 0],
    ["a run interrupted (Ctrl-C) while its script's child runs", ["exec", SPAWN_AND_WAIT], 130, undefined, { sig: "SIGINT", when: "[spawned]" }],
    // as soon as the runtime is spawned early, while the command still loads: before it handles signals itself
    ["a Ctrl-C while mcpx starts up", ["exec", "console.log(1)"], 130, undefined, { sig: "SIGINT", when: "runtime spawned", on: "stderr" }],
    // the hook's own shell leaves a sleep behind, which ends with the hook
    [
      "a run whose script.before hook left a child running",
      ["exec", "console.log(1)"],
      0,
      { hooks: [{ on: "script", phase: "before", run: ["sh", "-c", "sleep 300 & echo '{}'"] }] },
    ],
    ["a one-shot call", ["call", "fake.echo", '{"message":"x"}'], 0],
    ["an exec that calls a server, which is stopped when the run ends", ["exec", 'await fake.echo({ message: "x" })'], 0],
    // the server is still starting when the run ends: mcpx must stop it, not wait for it to exit (it hung)
    ["an exec whose call is not awaited, so its server is still starting when the run ends", ["exec", 'fake.echo({ message: "x" })'], 1],
    // the server's two sleeps left it (setsid, a double fork): they are its lineage, and end with it
    ["an exec whose server detached children, stopped when the run ends", ["exec", 'await detaching.echo({ message: "x" })'], 0],
    ["an exec whose server detached children, then crashed", ["exec", 'await crashing.echo({ message: "x" })'], 1],
    ["a one-shot call whose server detached children", ["call", "detaching.echo", '{"message":"x"}'], 0],
    ["mcpx serve whose client closed its stdin", ["serve"], 0],
    // stopped as soon as it listens: the runtime it keeps started for a first run is ended and reaped
    ["a daemon stopped with SIGTERM", ["daemon"], 0, undefined, { sig: "SIGTERM", when: "listening", on: "stderr" }],
  ];
  for (const [name, args, code, config, signal] of cases) {
    test(name, async () => {
      const sb = sandbox();
      writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
      // a first exec builds the runtime bundle, without which no runtime is started early
      expect((await underSubreaper(sb.dir, sb.env, ["exec", ""])).code).toBe(0);
      writeConfig(sb, ".mcpx.json", { mcpServers: SERVERS, ...config });
      // twice: the second call starts its server early, from what the first one noted
      for (let i = 0; i < 2; i++) {
        // MCPX_TRACE says when the runtime is spawned early (a case signals mcpx then)
        const r = await underSubreaper(sb.dir, { ...sb.env, MCPX_TRACE: "1" }, args, signal);
        if ("skipped" in r) return;
        expect({ code: r.code, left: r.left }).toEqual({ code, left: [] });
      }
    });
  }
});
