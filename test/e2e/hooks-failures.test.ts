// Hooks that fail, through the binary: one that sleeps past its timeout, one that never reads its
// stdin (with call arguments larger than a pipe buffer), one that prints garbage, one that exits 1
// and one whose executable disappears after the config loaded. Failing open (the default), the run
// carries on, the failure is in the hook frame (`failed`) and on stderr, and hook.failed is
// published; failing closed, the operation is refused instead. Either way no hook process is left:
// every hook's argv carries a unique marker (and its name does, which reaches every descendant as
// MCPX_HOOK_NAME), and processesWith() must find none afterwards. A hook whose executable is
// missing when the config loads is refused then, before anything runs.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "./harness.ts";
import {
  execStream,
  execText,
  expectExit,
  hookSandbox,
  onlyHookFrame,
  printed,
  recordedCalls,
  recordedStarts,
  recordPath,
  script,
  writeExecutable,
} from "./hooks-support.ts";
import { leftoverProcesses, mcpx, uniqueMarker, writeConfig } from "./support.ts";

const sb = hookSandbox();

/** bigger than a Linux pipe buffer (64 KiB) twice over, so a writer that waits for the reader would block */
const BIG = 200 * 1024;

interface FailureKind {
  label: string;
  /** the hook's run argv, carrying the marker; may create files it needs */
  run(marker: string, sb: Sandbox): string[];
  /** the hook's own timeout, if the test needs one */
  timeout?: string;
  /** extra environment for the run */
  env?: Record<string, string>;
  /** snippet lines before the call (the vanishing executable deletes itself here) */
  prelude?(argv: string[]): string;
  /** the size of the call's message argument */
  size?: number;
  failed: RegExp;
}

const KINDS: FailureKind[] = [
  {
    label: "a hook that sleeps past its timeout",
    run: (m) => ["sh", script("sleep.sh"), m],
    timeout: "1s",
    failed: /timed out/,
  },
  {
    label: "a hook that never reads its stdin, with call arguments larger than a pipe buffer, and never answers",
    run: (m) => ["sh", script("sleep.sh"), m],
    // the hooks.timeout setting this time, rather than the hook's own timeout
    env: { MCPX_HOOKS_TIMEOUT: "1s" },
    size: BIG,
    failed: /timed out/,
  },
  {
    label: "a hook that prints garbage",
    run: (m) => ["sh", "-c", "cat > /dev/null; echo 'this is not JSON {'", m],
    failed: /JSON/,
  },
  {
    label: "a hook that exits 1",
    run: (m) => ["sh", "-c", "cat > /dev/null; echo 'the hook broke' >&2; exit 1", m],
    // the exit code and the hook's stderr, so the frame says why
    failed: /1[\s\S]*the hook broke/,
  },
  {
    label: "a hook whose executable disappears after the config loaded",
    run: (m, box) => [writeExecutable(box, `vanishing-${m}.sh`, `#!/bin/sh\ncat > /dev/null\necho '{"advise":"still here"}'\n`), m],
    prelude: (argv) => `import { unlinkSync } from "node:fs";\nunlinkSync(${JSON.stringify(argv[0])});`,
    failed: /vanishing-[\s\S]*(ENOENT|no such file|not found)/i,
  },
];

/** a snippet that (after the prelude) calls fake.echo and prints {ok, length} or the caught error */
function snippet(kind: FailureKind, argv: string[]): string {
  const call = `fake.echo({ message: "x".repeat(${kind.size ?? 10}) })`;
  return [
    kind.prelude?.(argv) ?? "",
    `try { const v = await ${call}; console.log(JSON.stringify({ ok: true, length: v.length })) }`,
    `catch (e) { console.log(JSON.stringify({ ok: false, code: e.code, message: e.message, isToolError: e instanceof ToolError })) }`,
  ].join("\n");
}

function failingHook(kind: FailureKind, marker: string, argv: string[], extra: Record<string, unknown> = {}) {
  return { name: `failing-${marker}`, on: "call", phase: "before", run: argv, ...(kind.timeout ? { timeout: kind.timeout } : {}), ...extra };
}

describe.concurrent("failing open (the default): the run carries on", () => {
  for (const kind of KINDS) {
    test(`${kind.label}: the call goes through, the failure is in its hook frame and on stderr, and no process is left`, async () => {
      const marker = uniqueMarker("fail-open");
      const record = recordPath(sb);
      const runs = ["stream", "text"].map((mode) => {
        const argv = kind.run(`${marker}-${mode}`, sb);
        const hooks = [failingHook(kind, marker, argv)];
        const o = { hooks, record, env: kind.env ?? {} };
        return mode === "stream" ? execStream(sb, snippet(kind, argv), o) : execText(sb, snippet(kind, argv), o);
      });
      const [stream, plain] = (await Promise.all(runs)) as [Awaited<ReturnType<typeof execStream>>, Awaited<ReturnType<typeof execText>>];

      expectExit(stream, 0);
      expect(printed(stream.frames)).toEqual({ ok: true, length: kind.size ?? 10 });
      const frame = onlyHookFrame(stream.frames, `failing-${marker}`);
      expect(frame.failed ?? "no failed in the hook frame").toMatch(kind.failed);
      expect(frame.changed).toBe(false);

      expectExit(plain, 0);
      expect(plain.stdout).toContain('"ok":true');
      expect(plain.stderr).toContain(`failing-${marker}`);
      expect(plain.stderr).toContain("failed");

      // both runs' calls reached the server, at full size
      const calls = recordedCalls(record, "echo");
      expect(calls).toHaveLength(2);
      expect(calls.map((c) => String(c.args.message).length)).toEqual([kind.size ?? 10, kind.size ?? 10]);
      expect(await leftoverProcesses(marker)).toEqual([]);
    });

    test(`${kind.label}, declared failure closed: the call is refused naming the hook, the server never sees it, and no process is left`, async () => {
      const marker = uniqueMarker("fail-closed");
      const record = recordPath(sb);
      const argv = kind.run(marker, sb);
      const r = await execStream(sb, snippet(kind, argv), {
        record,
        env: kind.env ?? {},
        hooks: [failingHook(kind, marker, argv, { effect: "refuse", failure: "closed" })],
      });
      expectExit(r, 0);
      const caught = printed(r.frames);
      expect(caught).toMatchObject({ ok: false, isToolError: true, code: "REFUSED" });
      expect(String(caught.message)).toContain(`failing-${marker}`);
      expect(onlyHookFrame(r.frames, `failing-${marker}`).failed ?? "no failed in the hook frame").toMatch(kind.failed);
      expect(recordedCalls(record, "echo")).toEqual([]);
      expect(await leftoverProcesses(marker)).toEqual([]);
    });
  }
});

describe.concurrent("what is not a failure, and what the failure publishes", () => {
  test("a hook that never reads its stdin but answers, given arguments larger than a pipe buffer, is heard and the call goes through", async () => {
    const marker = uniqueMarker("no-stdin");
    const record = recordPath(sb);
    const r = await execStream(sb, `console.log(JSON.stringify({ length: (await fake.echo({ message: "y".repeat(${BIG}) })).length }))`, {
      record,
      hooks: [{ name: `quiet-${marker}`, on: "call", phase: "before", run: ["sh", script("no-stdin.sh"), marker], timeout: "10s" }],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ length: BIG });
    const frame = onlyHookFrame(r.frames, `quiet-${marker}`);
    expect(frame.failed).toBeUndefined();
    expect(frame.advice).toEqual(["answered without reading stdin"]);
    expect(recordedCalls(record, "echo").map((c) => String(c.args.message).length)).toEqual([BIG]);
    expect(await leftoverProcesses(marker)).toEqual([]);
  });

  test("a failing hook publishes hook.failed, which an observe hook on hook.failed receives", async () => {
    const marker = uniqueMarker("hook-failed");
    const seen = join(sb.dir, `${marker}.json`);
    const r = await execStream(sb, 'console.log(await fake.echo({ message: "hi" }))', {
      hooks: [
        { name: `broken-${marker}`, on: "call", phase: "before", run: ["sh", "-c", "cat > /dev/null; exit 1", marker] },
        { name: "watcher", on: "hook.failed", phase: "observe", run: ["sh", "-c", 'cat > "$0"', seen] },
      ],
    });
    expectExit(r, 0);
    expect(existsSync(seen)).toBe(true);
    const text = readFileSync(seen, "utf8");
    expect(text).toContain("hook.failed");
    expect(text).toContain(`broken-${marker}`);
  });
});

describe.concurrent("a hook whose executable is missing when the config loads", () => {
  test("a run path that does not exist is refused at load: exit 2 before anything runs, naming the file, the index and the executable", async () => {
    const record = recordPath(sb);
    const ran = join(sb.dir, "missing-path-ran.txt");
    const config = writeConfig(sb, "missing-path.json", {
      mcpServers: { fake: { command: "bun", args: [join(import.meta.dir, "../../fixtures/servers/fake-server.ts")], env: { FAKE_MCP_RECORD: record } } },
      hooks: [
        { on: "call", phase: "before", run: ["sh", "-c", "cat > /dev/null"] },
        { on: "call", phase: "before", run: ["./hooks/not-there.sh"] },
      ],
    });
    const r = await mcpx(sb, [
      "exec",
      "--config",
      config,
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(ran)}, "ran"); await fake.echo({ message: "hi" })`,
    ]);
    expectExit(r, 2);
    expect(r.stderr).toContain(config);
    expect(r.stderr).toContain("hooks[1]");
    expect(r.stderr).toContain("not-there.sh");
    expect(existsSync(ran)).toBe(false);
    expect(recordedStarts(record)).toEqual([]);
  });

  test("a bare program name that is not on PATH is refused at load: exit 2 naming the file, the index and the program", async () => {
    const config = writeConfig(sb, "missing-name.json", { hooks: [{ on: "script", phase: "before", run: ["no-such-hook-program-mcpx-e2e"] }] });
    const r = await mcpx(sb, ["exec", "--config", config, 'console.log("ran")']);
    expectExit(r, 2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(config);
    expect(r.stderr).toContain("hooks[0]");
    expect(r.stderr).toContain("no-such-hook-program-mcpx-e2e");
    expect(r.stderr).toContain("PATH");
  });
});
