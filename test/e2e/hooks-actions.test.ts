// The actions besides a plain run argv, through the binary: a `module` hook (a TS file run by mcpx's
// own runner, answering with its default export's value, reading the payload from stdin), a `plugin`
// hook (an MCP tool call whose text is read as a dial object), a `prompt` hook with no model (skipped
// with a warning), `observe` hooks (run from the bus after the fact, never changing the outcome), and
// what a run hook receives: the payload on stdin and the MCPX_HOOK_* variables.

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  copyScript,
  execStream,
  execText,
  expectExit,
  finalFrame,
  hookSandbox,
  onlyHookFrame,
  printed,
  recordedCalls,
  recordPath,
  say,
  tryCall,
} from "./hooks-support.ts";
import { mcpx, uniqueMarker } from "./support.ts";

const sb = hookSandbox();
const ECHO = 'fake.echo({ message: "hi" })';
// module hooks run from the sandbox: mcpx writes mcpx-globals.d.ts beside a script it runs
const ADVISE_MODULE = copyScript(sb, "advise-module.ts");
const PAYLOAD_MODULE = copyScript(sb, "payload-module.ts");

describe.concurrent("module hooks", () => {
  test("a module hook's default export {advise} becomes advice: on stderr and in its hook frame", async () => {
    const hooks = [{ name: "mod-advice", on: "call", phase: "before", module: ADVISE_MODULE }];
    const [stream, plain] = await Promise.all([execStream(sb, tryCall(ECHO), { hooks }), execText(sb, tryCall(ECHO), { hooks })]);
    expectExit(stream, 0);
    expect(onlyHookFrame(stream.frames, "mod-advice")).toMatchObject({ action: "module", advice: ["from module"] });
    expect(printed(stream.frames)).toEqual({ ok: true, value: "hi" });
    expectExit(plain, 0);
    expect(plain.stderr).toContain("from module");
  });

  test("a module hook reads the payload from its stdin", async () => {
    const r = await execStream(sb, tryCall(ECHO), { hooks: [{ name: "mod-payload", on: "call", phase: "before", module: PAYLOAD_MODULE }] });
    expectExit(r, 0);
    const frame = onlyHookFrame(r.frames, "mod-payload");
    expect(frame.failed).toBeUndefined();
    expect(frame.advice).toEqual(["module saw call.before fake.echo"]);
  });
});

describe.concurrent("plugin hooks", () => {
  test('a plugin hook "fake.echo" whose fixed args make it answer {"advise": "via plugin"} gives that advice', async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall("fake.add({ a: 1, b: 2 })"), {
      record,
      hooks: [{ name: "plug", on: "call", phase: "before", when: { tool: "add" }, plugin: "fake.echo", args: { message: '{"advise":"via plugin"}' } }],
    });
    expectExit(r, 0);
    expect(onlyHookFrame(r.frames, "plug")).toMatchObject({ action: "plugin", advice: ["via plugin"] });
    expect(printed(r.frames)).toEqual({ ok: true, value: { sum: 3 } });
    // the plugin call went to the server as a call of its own, before the gated one
    expect(recordedCalls(record).map((c) => c.tool)).toEqual(["echo", "add"]);
  });

  test("a refusing plugin hook at script.before keeps the script from starting", async () => {
    const r = await execStream(sb, 'console.log("ran")', {
      hooks: [
        { name: "plug-refuse", on: "script", phase: "before", plugin: "fake.echo", args: { message: '{"refuse":"the plugin says no"}' }, effect: "refuse" },
      ],
    });
    expectExit(r, 77);
    expect(JSON.stringify(finalFrame(r.frames))).toContain("the plugin says no");
  });
});

describe("what a script hook receives", () => {
  test("script.onSuccess receives the script's value as result, as the points table says (result: 5, not {value: 5})", async () => {
    const seen = join(sb.dir, `onsuccess-payload-${uniqueMarker("p")}.json`);
    const r = await execText(sb, "return 5", { hooks: [{ on: "script", phase: "onSuccess", run: ["sh", "-c", `cat > ${seen}; echo '{}'`] }] });
    expectExit(r, 0);
    const payload = JSON.parse(readFileSync(seen, "utf8"));
    expect(payload.result).toBe(5);
    const { POINTS } = await import("../../lib/hooks/points.ts");
    expect(POINTS.script.phases.onSuccess!.receives).toContain("result: 5");
  });
});

describe("what a server.start hook receives", () => {
  test("its tools count leaves out the `_` hook tools, and its runId is the run whose call started the server", async () => {
    const seen = join(sb.dir, `server-start-payload-${uniqueMarker("p")}.json`);
    const r = await execStream(sb, `await ${ECHO}`, { hooks: [{ on: "server.start", phase: "onSuccess", run: ["sh", "-c", `cat > ${seen}; echo '{}'`] }] });
    expectExit(r, 0);
    const payload = JSON.parse(readFileSync(seen, "utf8"));
    // what mcpx ls counts: the fake server also lists `_PreToolUse` and `_secret`
    const visible = (JSON.parse((await mcpx(sb, ["ls", "fake", "--json"])).stdout) as Array<{ count: number }>)[0]!.count;
    expect(visible).toBeGreaterThan(0);
    expect(payload.tools).toBe(visible);
    expect(payload.runId).toBe(r.frames.find((f) => f.type === "start")!.runId);
  });
});

describe.concurrent("prompt hooks", () => {
  test("a prompt hook with no model configured is skipped with a warning, and the call goes through", async () => {
    const r = await execText(sb, tryCall(ECHO), { hooks: [{ name: "ask-model", on: "call", phase: "before", prompt: "Is @call safe?", effect: "refuse" }] });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, value: "hi" });
    expect(r.stderr).toContain("ask-model");
    expect(r.stderr).toMatch(/no model/);
  });

  test("a prompt hook skipped for want of a model says so in its hook frame", async () => {
    const r = await execStream(sb, tryCall(ECHO), { hooks: [{ name: "ask-model", on: "call", phase: "before", prompt: "Is @call safe?" }] });
    expectExit(r, 0);
    const frame = onlyHookFrame(r.frames, "ask-model") as Record<string, unknown>;
    expect(frame.skipped).toBe("no model configured (set model.url and model.name)");
    expect(frame.failed).toBeUndefined();
  });
});

describe("prompt hooks with a model", () => {
  test("the text goes to the OpenAI-compatible endpoint with placeholders JSON-encoded, and the answer is a dial object", async () => {
    const seen: Array<{ auth: string | null; body: { model: string; messages: Array<{ content: string }> } }> = [];
    // a stand-in model on loopback: it objects to every call it is asked about
    const model = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        seen.push({ auth: req.headers.get("authorization"), body: (await req.json()) as never });
        return Response.json({ choices: [{ message: { content: '{"refuse": "the model says no"}' } }] });
      },
    });
    try {
      const record = recordPath(sb);
      const r = await execStream(sb, tryCall(ECHO), {
        record,
        hooks: [{ name: "ask-model", on: "call", phase: "before", prompt: "Is this call safe? tool=@call.tool args=@call.arguments", effect: "refuse" }],
        env: { MCPX_MODEL_URL: `http://127.0.0.1:${model.port}/v1`, MCPX_MODEL_NAME: "stand-in", MCPX_MODEL_API_KEY: "k123" },
      });
      expectExit(r, 0);
      expect(printed(r.frames)).toMatchObject({ ok: false });
      expect(JSON.stringify(printed(r.frames))).toContain("the model says no");
      expect(onlyHookFrame(r.frames, "ask-model")).toMatchObject({ action: "prompt", effect: "refuse" });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.auth).toBe("Bearer k123");
      expect(seen[0]!.body.model).toBe("stand-in");
      // values are JSON-encoded, never pasted in as raw text
      expect(seen[0]!.body.messages[0]!.content).toBe('Is this call safe? tool="echo" args={"message":"hi"}');
      expect(recordedCalls(record)).toEqual([]);
    } finally {
      model.stop(true);
    }
  });
});

describe.concurrent("observe hooks", () => {
  test("an observe hook on call runs after a call: its marker file exists after the run, holding the call.finished event", async () => {
    const marker = join(sb.dir, `${uniqueMarker("observe")}.json`);
    const r = await execStream(sb, tryCall(ECHO), { hooks: [{ name: "watch-calls", on: "call", phase: "observe", run: ["sh", "-c", 'cat > "$0"', marker] }] });
    expectExit(r, 0);
    expect(existsSync(marker)).toBe(true);
    const seen = JSON.parse(readFileSync(marker, "utf8"));
    expect(seen).toMatchObject({ point: "call.finished", phase: "observe" });
    expect(JSON.stringify(seen)).toContain('"tool":"echo"');
  });

  test("an observe hook's MCPX_HOOK_POINT is the event kind, with the run id, server and tool of the call it saw", async () => {
    const saved = join(sb.dir, `${uniqueMarker("observe-env")}.env`);
    const r = await execStream(sb, tryCall(ECHO), {
      hooks: [{ name: "watch-env", on: "call", phase: "observe", run: ["sh", "-c", 'cat > /dev/null; env | grep "^MCPX_HOOK_" | sort > "$0"', saved] }],
    });
    expectExit(r, 0);
    const runId = r.frames.find((f) => f.type === "start")?.runId;
    const vars = Object.fromEntries(
      readFileSync(saved, "utf8")
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    expect(vars).toMatchObject({
      MCPX_HOOK_POINT: "call.finished",
      MCPX_HOOK_PHASE: "observe",
      MCPX_HOOK_NAME: "watch-env",
      MCPX_HOOK_RUN_ID: runId,
      MCPX_HOOK_SERVER: "fake",
      MCPX_HOOK_TOOL: "echo",
    });
  });

  test("an observe hook never changes the outcome, whatever it answers and whatever effect it declares", async () => {
    const record = recordPath(sb);
    const r = await execStream(sb, tryCall(ECHO), {
      record,
      hooks: [
        { name: "observe-refuse", on: "call", phase: "observe", run: say({ refuse: "no", apply: { content: [] } }), effect: "apply" },
        { name: "observe-all", on: "*", phase: "observe", run: say({ refuse: "no" }), effect: "refuse" },
      ],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
    expect(finalFrame(r.frames)?.type).toBe("result");
    expect(recordedCalls(record, "echo")).toHaveLength(1);
  });

  test("an observe hook that fails does not fail the run", async () => {
    const r = await execStream(sb, tryCall(ECHO), {
      hooks: [{ name: "observe-broken", on: "call", phase: "observe", run: ["sh", "-c", "cat > /dev/null; exit 1"] }],
    });
    expectExit(r, 0);
    expect(printed(r.frames)).toEqual({ ok: true, value: "hi" });
  });
});

describe.concurrent("what a run hook receives", () => {
  test("the payload as JSON on stdin ({point, phase, runId, call}) and the MCPX_HOOK_* variables", async () => {
    const saved = join(sb.dir, `${uniqueMarker("payload")}.json`);
    const r = await execStream(sb, tryCall(ECHO), {
      hooks: [{ name: "spy", on: "call", phase: "before", run: ["sh", "-c", 'cat > "$0"; env | grep "^MCPX_HOOK_" | sort > "$0.env"', saved] }],
    });
    expectExit(r, 0);
    const runId = r.frames.find((f) => f.type === "start")?.runId;
    const payload = JSON.parse(readFileSync(saved, "utf8"));
    expect(payload).toMatchObject({ point: "call", phase: "before", runId, call: { server: "fake", tool: "echo", arguments: { message: "hi" } } });
    const vars = Object.fromEntries(
      readFileSync(`${saved}.env`, "utf8")
        .trim()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    expect(vars).toMatchObject({
      MCPX_HOOK_POINT: "call",
      MCPX_HOOK_PHASE: "before",
      MCPX_HOOK_NAME: "spy",
      MCPX_HOOK_RUN_ID: runId,
      MCPX_HOOK_SERVER: "fake",
      MCPX_HOOK_TOOL: "echo",
    });
  });
});
