// One representative error per exit code of the table (lib/errors/codes.ts), through the compiled
// binary: the process exits with the table's exit code and, where the error reaches a frame, the
// --json envelope carries the table's frame code. The expectations are read from the table, so a
// row whose exit code changes, or an exit code with no case here, fails this file. (Other files pin
// the messages: output, config-settings, timeout, hooks-dial-script, daemon-remote.)

import { describe, expect, test } from "bun:test";
import { ERROR_CODE_NAMES, ERROR_CODES, exitCodeOf, frameCodeOf, type ErrorCode } from "../../lib/errors/codes.ts";
import { fakeServer, MCPX, mcpx, sandbox, type Sandbox } from "./harness.ts";

interface Case {
  code: ErrorCode;
  /** the exit expected when the table says "script" (the script's own code) */
  scriptExit?: number;
  args: string[];
  config?: string;
}

const REFUSE_RUN = { on: "script", phase: "before", effect: "refuse", run: ["sh", "-c", `echo '{"refuse": "not today"}'`] };

const CASES: Case[] = [
  { code: "TOOL_ERROR", args: ["exec", "--json", "await fake.fail({ message: 'nope' })"] },
  { code: "UNKNOWN_SERVER", args: ["exec", "--json", "await call('nosuch', 'echo', {})"] },
  { code: "USAGE", args: ["exec", "--json", "--output", "stream", "1"] },
  { code: "CONFIG", args: ["exec", "--json", "1"], config: "{ not json" },
  { code: "REFUSED", args: ["exec", "--json", "1"], config: JSON.stringify({ mcpServers: { fake: fakeServer() }, hooks: [REFUSE_RUN] }) },
  { code: "TIMEOUT", args: ["exec", "--json", "--timeout", "300ms", "await new Promise((r) => setTimeout(r, 30_000))"] },
  { code: "EXIT", scriptExit: 3, args: ["exec", "--json", "process.exit(3)"] },
  { code: "EXIT", scriptExit: 137, args: ["exec", "--json", "process.kill(process.pid, 'SIGKILL')"] },
];

function setUp(c: Case): Sandbox {
  const sb = sandbox();
  sb.write(".mcpx.json", c.config ?? JSON.stringify({ mcpServers: { fake: fakeServer() } }));
  return sb;
}

describe("every exit code of the table, through the binary", () => {
  test.each(CASES.map((c) => [c.code, c.scriptExit ?? exitCodeOf(c.code), c] as const))("%s exits %d", async (code, exit, c) => {
    const r = await mcpx(setUp(c), c.args, { killAfterMs: 30_000 });
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: exit });
    const frame = ERROR_CODES[code].frame;
    if (r.stdout.trim() !== "") {
      // the run started: the envelope's error carries the frame code and the same exit code
      const env = JSON.parse(r.stdout) as { exitCode: number; error: { code?: string } };
      expect(env.exitCode).toBe(exit);
      expect(env.error.code).toBe(frameCodeOf(code));
    } else {
      // stopped before any run: one line on stderr naming the command, never a stack trace
      expect(r.stderr).toMatch(/^mcpx exec: /);
      expect(r.stderr).not.toContain("    at ");
      expect(["USAGE", null]).toContain(frame);
    }
  });

  test("INTERRUPTED: SIGINT to mcpx ends the run with 130 and the frame code INTERRUPTED", async () => {
    const sb = setUp({ code: "INTERRUPTED", args: [] });
    const proc = Bun.spawn([MCPX, "exec", "--output", "stream", "console.log('ready'); await new Promise((r) => setTimeout(r, 30_000))"], {
      cwd: sb.dir,
      env: sb.env,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let text = "";
    // the script has started once its own line arrives; a signal before that would test nothing
    while (!text.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain("ready");
    proc.kill("SIGINT");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(await proc.exited).toBe(exitCodeOf("INTERRUPTED"));
    const frames = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; error?: { code?: string }; exitCode?: number });
    expect(frames.find((f) => f.type === "error")?.error?.code).toBe(frameCodeOf("INTERRUPTED"));
    expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 130 });
  });

  test("DAEMON_NOT_RUNNING: mcpx daemon status with no daemon exits 3 and says where it looked, on stdout", async () => {
    const sb = sandbox();
    const r = await mcpx(sb, ["daemon", "status"]);
    expect(r.code).toBe(exitCodeOf("DAEMON_NOT_RUNNING"));
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^not running on \/\S+\.sock\n$/);
    expect(r.stderr).toBe("");
  });

  test("the cases above cover every exit code the table declares", () => {
    const declared = new Set(ERROR_CODE_NAMES.map((c) => ERROR_CODES[c].exit));
    const covered = new Set<number | "script">([
      ...CASES.map((c) => ERROR_CODES[c.code].exit),
      ERROR_CODES.INTERRUPTED.exit,
      ERROR_CODES.DAEMON_NOT_RUNNING.exit,
    ]);
    expect([...declared].filter((e) => !covered.has(e))).toEqual([]);
  });
});
