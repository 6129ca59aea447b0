// The guard test of decision 0016: every path a tool call can take, one row each, driven through the binary.
// One config holds a refusing call guard on fake.echo (a `call.before` run hook, effect refuse) and
// an observe hook that appends every call.finished event to a file. Each row makes its call of
// fake.echo its own way and must be refused (the server never sees that call: each row's message is
// its own marker) and must leave a call frame, or, where the door has no frame stream, a
// call.finished event. Adding a path is adding a row.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fakeServer, MCPX, sandbox } from "./harness.ts";
import { copyScript, recordedCalls, say } from "./hooks-support.ts";
import { recordedReads } from "../../fixtures/servers/record.ts";
import { mcpx, parseFrames, writeConfig, type Frame } from "./support.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";

const sb = sandbox();
const record = join(sb.dir, "record.jsonl");
const events = join(sb.dir, "call-events.jsonl");
const GUARD = { name: "guard", on: "call", phase: "before", when: { server: "fake", tool: "echo" }, run: say({ refuse: "echo is guarded" }), effect: "refuse" };
const WATCH = { name: "watch", on: "call.finished", phase: "observe", run: ["sh", "-c", 'cat >> "$0"; echo >> "$0"', events] };
// the resource.read and prompt.get guards: every way a script or a command reads one is refused
const READ_GUARD = {
  name: "read-guard",
  on: "resource.read",
  phase: "before",
  when: { uri: "fake://note" },
  run: say({ refuse: "notes are guarded" }),
  effect: "refuse",
};
const PROMPT_GUARD = {
  name: "prompt-guard",
  on: "prompt.get",
  phase: "before",
  when: { server: "fake" },
  run: say({ refuse: "prompts are guarded" }),
  effect: "refuse",
};
writeConfig(sb, ".mcpx.json", {
  mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record, FAKE_MCP_FEATURES: "1" }) },
  hooks: [GUARD, WATCH, READ_GUARD, PROMPT_GUARD],
});
const CALLING_MODULE = copyScript(sb, "calling-module.ts");

let daemon: Daemon;
let served: Client;
afterAll(async () => {
  await served?.close();
  await stopDaemons();
});
beforeAll(async () => {
  daemon = await startDaemon(sb);
  const transport = new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" });
  served = new Client({ name: "every-path", version: "0" });
  await served.connect(transport);
});

/** what a row's call left: the frames of its run, when its door streams frames; its exit or answer text */
interface Outcome {
  frames?: Frame[];
  said: string;
}

const stream = async (args: string[], env: Record<string, string> = {}): Promise<Outcome> => {
  const r = await mcpx(sb, [...args.slice(0, 1), "--output", "stream", ...args.slice(1)], { env });
  return { frames: parseFrames(r.stdout), said: r.stdout + r.stderr };
};
const plain = async (args: string[], env: Record<string, string> = {}): Promise<Outcome> => {
  const r = await mcpx(sb, args, { env });
  return { said: `exit ${r.code}\n${r.stdout}${r.stderr}` };
};
const echoArgs = (m: string) => JSON.stringify({ message: m });
const snippet = (expr: string) => `try { await ${expr} } catch (e) { console.log(e.message) }`;
const hooksEnv = (hooks: unknown[]) => ({ MCPX_HOOKS: JSON.stringify([GUARD, WATCH, ...hooks]) });

/** one row per path: its name and how it calls fake.echo with message `m` */
const PATHS: Array<{ path: string; call(m: string): Promise<Outcome> }> = [
  { path: "script namespace fake.echo(...)", call: (m) => stream(["exec", snippet(`fake.echo(${echoArgs(m)})`)]) },
  { path: "fake.echo.raw(...)", call: (m) => stream(["exec", snippet(`fake.echo.raw(${echoArgs(m)})`)]) },
  { path: 'tools["fake"].echo(...)', call: (m) => stream(["exec", snippet(`tools["fake"].echo(${echoArgs(m)})`)]) },
  { path: 'call("fake", "echo", ...)', call: (m) => stream(["exec", snippet(`call("fake", "echo", ${echoArgs(m)})`)]) },
  { path: "mcpx call", call: (m) => plain(["call", "fake.echo", echoArgs(m)]) },
  { path: "mcpx call --remote", call: (m) => plain(["call", "--remote", "fake.echo", echoArgs(m)]) },
  { path: "MCPX_REMOTE=1 mcpx call", call: (m) => plain(["call", "fake.echo", echoArgs(m)], { MCPX_REMOTE: "1" }) },
  { path: "mcpx exec --remote", call: (m) => stream(["exec", "--remote", snippet(`fake.echo(${echoArgs(m)})`)]) },
  {
    path: "POST /v1/call",
    call: async (m) => {
      const res = await daemon.fetch("/v1/call", { method: "POST", body: JSON.stringify({ server: "fake", tool: "echo", args: { message: m } }) });
      return { said: await res.text() };
    },
  },
  {
    path: "mcpx_call",
    call: async (m) => ({
      said: JSON.stringify(await served.callTool({ name: "mcpx_call", arguments: { server: "fake", tool: "echo", args: { message: m } } })),
    }),
  },
  {
    path: "mcpx_exec",
    call: async (m) => {
      const r = (await served.callTool({ name: "mcpx_exec", arguments: { source: snippet(`fake.echo(${echoArgs(m)})`), output: "stream" } })) as {
        structuredContent?: { frames?: Frame[] };
      };
      return { frames: r.structuredContent?.frames, said: JSON.stringify(r) };
    },
  },
  {
    path: "a plugin hook's action",
    call: (m) => stream(["exec", "return 1"], hooksEnv([{ name: "plug", on: "script", phase: "before", plugin: "fake.echo", args: { message: m } }])),
  },
  {
    path: "a module hook's script",
    // the module's marker is its own message ("from module"): recorded calls are checked by it
    call: () => stream(["exec", "return 1"], hooksEnv([{ name: "mod", on: "script", phase: "before", module: CALLING_MODULE }])),
  },
];

// only lines the observer has finished (its echo writes the newline after the event): a line still
// being appended while this reads is not JSON yet (read under load, it was a parse error)
const finishedText = (text: string) => text.slice(0, text.lastIndexOf("\n") + 1);
const eventLines = () =>
  existsSync(events)
    ? finishedText(readFileSync(events, "utf8"))
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l).event as { kind: string; data: { server: string; tool: string; ok: boolean } })
    : [];

describe("every path a tool call can take passes the call guard", () => {
  // in order, not concurrently: a row's call.finished event is told from the others' by arriving after them
  for (const row of PATHS) {
    test(`${row.path}: refused, never sent, and it leaves a call frame or a call.finished event`, async () => {
      const marker = row.path === "a module hook's script" ? "from module" : `marker ${crypto.randomUUID()}`;
      const before = eventLines().length;
      const out = await row.call(marker);
      expect(out.said).toContain("refused by hook guard");
      expect(recordedCalls(record).filter((c) => (c.args as { message?: string })?.message === marker)).toEqual([]);
      const frame = out.frames?.find((f) => f.type === "call" && f.server === "fake" && f.tool === "echo");
      if (out.frames) expect(frame).toMatchObject({ ok: false });
      else {
        // the observer runs after the call's answer: wait for its line (the CLI waits for observers before it exits)
        for (let i = 0; i < 100 && eventLines().length === before; i++) await Bun.sleep(20);
        expect(eventLines().slice(before)).toContainEqual(
          expect.objectContaining({ kind: "call.finished", data: expect.objectContaining({ tool: "echo", ok: false }) }),
        );
      }
    });
  }

  test("an MCP hook tool (`_` name) is not a tool any path can call: unknown, never sent, and it leaves a call frame", async () => {
    const out = await stream(["exec", snippet('call("fake", "_PreToolUse", {})')]);
    expect(out.said).toContain("_PreToolUse");
    expect(recordedCalls(record).filter((c) => c.tool === "_PreToolUse")).toEqual([]);
    expect(out.frames?.find((f) => f.type === "call" && f.tool === "_PreToolUse")).toMatchObject({ ok: false });
  });
});

/** one row per way a resources/read or prompts/get can be made: the script functions on every door that runs a script, and the commands */
const READ = 'resources.read("fake", "fake://note")';
const GET = 'prompts.get("fake", "greet", { name: "Ada" })';
const FEATURE_PATHS: Array<{ path: string; refusedBy: string; run(): Promise<Outcome> }> = [
  ...[
    { what: "resources.read", expr: READ, refusedBy: "read-guard" },
    { what: "prompts.get", expr: GET, refusedBy: "prompt-guard" },
  ].flatMap(({ what, expr, refusedBy }) => [
    { path: `${what} in mcpx exec`, refusedBy, run: () => stream(["exec", snippet(expr)]) },
    { path: `${what} in mcpx exec --remote (POST /v1/exec)`, refusedBy, run: () => stream(["exec", "--remote", snippet(expr)]) },
    {
      path: `${what} in mcpx_exec`,
      refusedBy,
      run: async () => {
        const r = (await served.callTool({ name: "mcpx_exec", arguments: { source: snippet(expr), output: "stream" } })) as {
          structuredContent?: { frames?: Frame[] };
        };
        return { frames: r.structuredContent?.frames, said: JSON.stringify(r) };
      },
    },
  ]),
  { path: "mcpx resource SERVER URI", refusedBy: "read-guard", run: () => plain(["resource", "fake", "fake://note"]) },
  { path: "mcpx prompt SERVER NAME", refusedBy: "prompt-guard", run: () => plain(["prompt", "fake", "greet", "name=Ada"]) },
];

describe("every path a resource read or a prompt get can take passes its guard", () => {
  for (const row of FEATURE_PATHS) {
    test(`${row.path}: refused by ${row.refusedBy}, never sent, and its hook frame is in the run's stream where there is one`, async () => {
      const before = recordedReads(record).length;
      const out = await row.run();
      expect(out.said).toContain(`refused by hook ${row.refusedBy}`);
      expect(recordedReads(record).slice(before)).toEqual([]);
      if (out.frames) expect(out.frames.find((f) => f.type === "hook" && f.name === row.refusedBy)).toMatchObject({ effect: "refuse" });
    });
  }
});
