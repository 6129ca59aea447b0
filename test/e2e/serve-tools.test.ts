// `mcpx serve` through the binary, driven by the SDK's own Client over stdio: the tools it lists,
// mcpx_exec with every phase (also when the source throws), mcpx_call through the gate,
// mcpx_namespaces, mcpx_types, argument validation as isError results, a stdout that carries MCP
// messages only, and a server that ends with its client's stdin and leaves nothing behind.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LoggingMessageNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { recordedCalls } from "../../fixtures/servers/record.ts";
import { MCPX, fakeServer, processesWith, sandbox } from "./harness.ts";
import { recordPath, say } from "./hooks-support.ts";
import { fileExists, leftoverProcesses, scriptAwaits, serve, uniqueMarker, writeConfig, type Served } from "./support.ts";
import { SERVED_TOOL_NAMES } from "../served-tools.ts";

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };
const textOf = (r: Result) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
const call = async (s: Served, name: string, args: Record<string, unknown>) => (await s.client.callTool({ name, arguments: args })) as Result;

const sb = sandbox();
const record = recordPath(sb, "served");
// `console` cannot be a global namespace (it is the runtime's), so scripts reach it as tools["console"]
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer({ FAKE_MCP_RECORD: record }), console: fakeServer() } });
const HOOKS = [
  { name: "no-deleting", on: "call", phase: "before", when: { tool: "delete_item" }, run: say({ refuse: "deleting needs a ticket" }), effect: "refuse" },
  { name: "json-note", on: "call", phase: "onSuccess", when: { tool: "json_text" }, run: say({ advise: "that was JSON" }) },
];

let s: Served;
beforeAll(async () => {
  s = await serve(sb, { MCPX_HOOKS: JSON.stringify(HOOKS) });
});
afterAll(async () => {
  await s?.close();
});

describe("tools/list", () => {
  test("offers mcpx's nine tools, each with a description and an object input schema, and no upstream `_` hook tool", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(SERVED_TOOL_NAMES);
    for (const t of tools) {
      expect(t.description?.length ?? 0).toBeGreaterThan(20);
      expect(t.inputSchema.type).toBe("object");
    }
    // the fake server lists _PreToolUse and _secret: they are hooks, never served
    expect(tools.some((t) => t.name === "_PreToolUse" || t.name === "_secret")).toBe(false);
  });

  test("mcpx_exec's schema is the ExecOptions fields and resume: nothing required (resume may leave source out), phases and hooks, no file", async () => {
    const exec = (await s.client.listTools()).tools.find((t) => t.name === "mcpx_exec")!;
    const props = exec.inputSchema.properties as Record<string, { properties?: Record<string, unknown> }>;
    expect(exec.inputSchema.required ?? []).toEqual([]);
    expect(Object.keys(props).sort()).toEqual([
      "args",
      "cwd",
      "delivery",
      "env",
      "export",
      "hooks",
      "name",
      "output",
      "resume",
      "runtime",
      "sandbox",
      "script",
      "settings",
      "source",
      "stdin",
      "timeout",
      "timeoutMs",
    ]);
    expect(Object.keys(props.script!.properties!)).toEqual(["before", "prefix", "onSuccess", "onError", "suffix"]);
    expect(Object.keys(props.settings!.properties!).sort()).toEqual([
      "autonomy.max",
      "hooks.autonomy",
      "hooks.mcpTimeout",
      "hooks.retryBudget",
      "hooks.timeout",
      "mcp.callTimeout",
    ]);
    expect((exec.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
  });
});

describe("mcpx_exec", () => {
  const PHASES = {
    // decision 0005: before has log but not the tool globals (call, tools, the namespaces); prefix has both
    before: ['console.error("[before] call is " + typeof call)'],
    prefix: ['console.error("[prefix] call is " + typeof call)'],
    onSuccess: ['console.error("[onSuccess] " + JSON.stringify(result.value))'],
    onError: ['console.error("[onError] " + (result.error as Error).message)'],
    suffix: ['console.error("[suffix]")'],
  };

  test("runs before, prefix, the source, onSuccess and suffix; stdout and the result come back as text and in the envelope", async () => {
    const r = await call(s, "mcpx_exec", { source: 'console.log(await fake.echo({ message: "hi" }));\nexport default () => ({ answer: 42 })', script: PHASES });
    expect(r.isError).toBe(false);
    const env = r.structuredContent as {
      ok: boolean;
      exitCode: number;
      stdout: string;
      stderr: string;
      result: unknown;
      calls: Array<{ server: string; tool: string; ok: boolean }>;
    };
    expect(env).toMatchObject({ ok: true, exitCode: 0, stdout: "hi\n", result: { answer: 42 } });
    expect(env.stderr.split("\n").filter(Boolean)).toEqual([
      "[before] call is undefined",
      "[prefix] call is function",
      '[onSuccess] {"answer":42}',
      "[suffix]",
    ]);
    expect(env.calls.map((c) => `${c.server}.${c.tool} ${c.ok}`)).toEqual(["fake.echo true"]);
    expect(textOf(r)).toBe('hi\nresult: {"answer":42}');
  });

  test(
    "output chooses the text content: text (the default) stdout and result, json the " +
      "envelope, stream every frame; the envelope is the structuredContent each time",
    async () => {
      const source = 'console.log("out");\nexport default () => 7';
      const asText = await call(s, "mcpx_exec", { source, output: "text" });
      expect(textOf(asText)).toBe("out\nresult: 7");
      const asJson = await call(s, "mcpx_exec", { source, output: "json" });
      expect(JSON.parse(textOf(asJson))).toEqual(asJson.structuredContent as Record<string, unknown>);
      expect(asJson.structuredContent).toMatchObject({ ok: true, stdout: "out\n", result: 7 });
      const asStream = await call(s, "mcpx_exec", { source, output: "stream" });
      const frames = textOf(asStream)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; data?: string; value?: unknown });
      expect(frames[0]!.type).toBe("start");
      expect(frames.at(-1)).toMatchObject({ type: "end", exitCode: 0 });
      expect(
        frames
          .filter((f) => f.type === "stdout")
          .map((f) => f.data)
          .join(""),
      ).toBe("out\n");
      expect(frames.find((f) => f.type === "result")!.value).toBe(7);
      expect(asStream.structuredContent).toMatchObject({ ok: true, stdout: "out\n", result: 7 });
    },
  );

  test("a throwing source runs onError and suffix, and the result is isError with the error", async () => {
    const r = await call(s, "mcpx_exec", { source: 'console.log("[body]");\nthrow new Error("the snippet fails")', script: PHASES });
    expect(r.isError).toBe(true);
    const env = r.structuredContent as { ok: boolean; exitCode: number; stdout: string; stderr: string; error: { message: string } };
    expect(env).toMatchObject({ ok: false, exitCode: 1, stdout: "[body]\n", error: { message: "the snippet fails" } });
    expect(env.stderr.split("\n").filter(Boolean)).toEqual([
      "[before] call is undefined",
      "[prefix] call is function",
      "[onError] the snippet fails",
      "[suffix]",
    ]);
    expect(textOf(r)).toContain("the snippet fails");
    expect(textOf(r)).toContain("[body]");
  });

  test("per-run hooks apply: a refusing script.before hook keeps the source from running and the result names the hook", async () => {
    // a plugin hook: a tool call, the one action an agent may declare (run, module and prompt are refused)
    const r = await call(s, "mcpx_exec", {
      source: 'console.log("must not run")',
      hooks: [{ name: "not-now", on: "script", phase: "before", plugin: "fake.echo", args: { message: "maintenance window" }, effect: "refuse" }],
    });
    expect(r.isError).toBe(true);
    const env = r.structuredContent as { exitCode: number; stdout: string; error: { code: string; message: string } };
    expect(env.exitCode).toBe(77);
    expect(env.stdout).toBe("");
    expect(env.error.code).toBe("REFUSED");
    expect(env.error.message).toContain("not-now");
    expect(textOf(r)).toContain("maintenance window");
  });

  test("args, stdin and env reach the script", async () => {
    const r = await call(s, "mcpx_exec", {
      source:
        "let input = '';\nfor await (const chunk of process.stdin) input += chunk;\nexport " +
        "default (args: string[]) => [args.join(','), input, process.env.SERVE_E2E]",
      args: ["a", "b"],
      stdin: "from stdin",
      env: { SERVE_E2E: "set" },
    });
    expect(r.isError).toBe(false);
    expect(r.structuredContent?.result).toEqual(["a,b", "from stdin", "set"]);
  });
});

describe("mcpx_call", () => {
  test("returns the upstream tool's result as it came (content and structuredContent)", async () => {
    const r = await call(s, "mcpx_call", { server: "fake", tool: "add", args: { a: 1, b: 2 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ sum: 3 });
    expect(textOf(r)).toBe('{"sum":3}');
  });

  test("a tool error is an isError result with the tool's text", async () => {
    const r = await call(s, "mcpx_call", { server: "fake", tool: "fail", args: { message: "it broke" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("it broke");
  });

  test("a call.before hook that refuses makes it an isError result naming the hook, and the server never sees the call", async () => {
    const r = await call(s, "mcpx_call", { server: "fake", tool: "delete_item", args: { id: "x1" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("no-deleting");
    expect(textOf(r)).toContain("deleting needs a ticket");
    expect((r.structuredContent as { error: { code: string } }).error.code).toBe("REFUSED");
    expect(recordedCalls(record, "delete_item")).toEqual([]);
  });

  test("an upstream `_` hook tool is an unknown tool, and the server never sees the call", async () => {
    const r = await call(s, "mcpx_call", { server: "fake", tool: "_secret", args: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('unknown tool "_secret"');
    expect(recordedCalls(record, "_secret")).toEqual([]);
  });

  test("an unknown tool or server points the agent to the door's own tools, not to a shell's `mcpx ls`", async () => {
    const tool = await call(s, "mcpx_call", { server: "fake", tool: "nosuch", args: {} });
    const server = await call(s, "mcpx_call", { server: "nosuch", tool: "echo", args: {} });
    expect(textOf(tool)).toContain('mcpx_types {"server": "fake"} lists its tools');
    expect(textOf(server)).toContain("mcpx_namespaces lists them");
    for (const r of [tool, server]) expect(textOf(r)).not.toContain("mcpx ls");
  });
});

describe("what a call tells the client while it runs", () => {
  test("mcpx_exec reports progress to a client that asks for it: the start, each upstream call, each log", async () => {
    const notes: string[] = [];
    // the SDK's client drops progress for a request it has already answered, so the script ends only
    // once the client has the last note: the client writes a file when "halfway" arrives, and the
    // script waits for it (a deadline turns a lost note into a failed run instead of a hang)
    const heard = join(sb.dir, `heard-halfway-${process.pid}`);
    const source = [
      'await fake.echo({ message: "a" }); await fake.add({ a: 1, b: 1 }); log("halfway");',
      scriptAwaits(fileExists(heard), "the client heard halfway"),
    ].join("\n");
    const onprogress = (p: { message?: string }) => {
      notes.push(String(p.message));
      if (p.message === "halfway") writeFileSync(heard, "");
    };
    // mcpx_exec is sandboxed: the script may read the handshake file because this server says so
    const own = await serve(sb, { MCPX_EXEC_SANDBOX_ALLOW: JSON.stringify([{ read: [heard] }]), MCPX_EXEC_SANDBOX_ENGINE: "deno" });
    try {
      const r = (await own.client.callTool({ name: "mcpx_exec", arguments: { source } }, undefined, { onprogress })) as Result;
      expect(r.isError).toBe(false);
      expect(notes).toEqual(["started", "called fake.echo", "called fake.add", "halfway"]);
    } finally {
      await own.close();
    }
  });

  test("hook advice reaches the client as an MCP log message from the hook, and logging/setLevel filters it", async () => {
    const got: Array<{ level: string; logger?: string; data: unknown }> = [];
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      got.push(n.params);
    });
    await call(s, "mcpx_call", { server: "fake", tool: "json_text", args: {} });
    expect(got).toEqual([{ level: "notice", logger: "hook json-note", data: "that was JSON" }]);
    await s.client.setLoggingLevel("warning");
    await call(s, "mcpx_call", { server: "fake", tool: "json_text", args: {} });
    expect(got).toHaveLength(1);
    await s.client.setLoggingLevel("debug");
  });
});

describe("mcpx_namespaces and mcpx_types", () => {
  test("mcpx_namespaces lists each server with its identifier and its visible tool count (hook tools not counted)", async () => {
    const r = await call(s, "mcpx_namespaces", {});
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({
      servers: [
        { name: "fake", identifier: "fake", global: true, tools: 13 },
        { name: "console", identifier: "console", global: false, hiddenBecause: "console is a JavaScript or runtime global", tools: 13 },
      ],
    });
    expect(textOf(r)).toContain("fake\tfake\t13 tools");
    expect(textOf(r)).toContain('console\ttools["console"]\t13 tools');
  });

  test("mcpx_types gives one tool's TypeScript signature", async () => {
    const r = await call(s, "mcpx_types", { server: "fake", tool: "add" });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("function add(args: Args): Promise<Result>;");
    expect(textOf(r)).toContain("type Result = { sum: number };");
  });

  test("mcpx_types of a server declares its namespace without hook tools", async () => {
    const r = await call(s, "mcpx_types", { server: "fake" });
    expect(textOf(r)).toContain("declare namespace fake {");
    expect(textOf(r)).toContain("function get_sum(");
    expect(textOf(r)).not.toContain("_PreToolUse");
    expect(textOf(r)).not.toContain("_secret");
  });

  test("mcpx_types of an unknown server or tool is an isError result saying what exists", async () => {
    const server = await call(s, "mcpx_types", { server: "nope" });
    expect(server.isError).toBe(true);
    expect(textOf(server)).toContain("configured servers are fake, console");
    const tool = await call(s, "mcpx_types", { server: "fake", tool: "_secret" });
    expect(tool.isError).toBe(true);
    expect(textOf(tool)).toContain("use one of echo, add");
  });
});

describe("argument validation: isError results that name the key and what it takes", () => {
  const cases: Array<{ name: string; tool: string; args: Record<string, unknown>; says: string[] }> = [
    { name: "mcpx_exec without source or resume", tool: "mcpx_exec", args: {}, says: ['it needs "source" (the script to run), or "resume"'] },
    { name: "mcpx_exec with a number as source", tool: "mcpx_exec", args: { source: 1 }, says: ["source: expected string, got 1"] },
    {
      name: "mcpx_exec with a misspelt key",
      tool: "mcpx_exec",
      args: { source: "1", sript: {} },
      says: ['unknown key "sript"', "source, name, args", "did you mean script?"],
    },
    { name: "mcpx_exec with file, which MCP does not offer", tool: "mcpx_exec", args: { source: "1", file: "x.ts" }, says: ['unknown key "file"'] },
    {
      name: "mcpx_exec with an unknown phase",
      tool: "mcpx_exec",
      args: { source: "1", script: { after: ["x"] } },
      says: ['unknown key "script.after"', "before, prefix, onSuccess, onError, suffix"],
    },
    {
      name: "mcpx_exec with an unknown runtime",
      tool: "mcpx_exec",
      args: { source: "1", runtime: "python" },
      says: ["runtime", '"auto" | "bun" | "deno" | "node"', '"python"'],
    },
    { name: "mcpx_exec with a string timeout", tool: "mcpx_exec", args: { source: "1", timeoutMs: "5s" }, says: ["timeoutMs: expected number"] },
    {
      name: "mcpx_exec with a per-run hook on another point",
      tool: "mcpx_exec",
      args: { source: "1", hooks: [{ on: "server.start", phase: "before", plugin: "fake.echo" }] },
      says: ['a per-run hook must be on "script" or "call"'],
    },
    { name: "mcpx_call without tool", tool: "mcpx_call", args: { server: "fake" }, says: ['missing required key "tool"'] },
    { name: "mcpx_call with an array as args", tool: "mcpx_call", args: { server: "fake", tool: "echo", args: ["hi"] }, says: ["args: expected an object"] },
    { name: "mcpx_namespaces with an argument", tool: "mcpx_namespaces", args: { server: "fake" }, says: ['unknown key "server"', "no keys"] },
    { name: "mcpx_types without server", tool: "mcpx_types", args: { tool: "add" }, says: ['missing required key "server"'] },
  ];
  for (const c of cases) {
    test(`${c.name}`, async () => {
      const r = await call(s, c.tool, c.args);
      expect(r.isError).toBe(true);
      for (const part of c.says) expect(textOf(r)).toContain(part);
    });
  }

  test("an unknown tool name is an isError result listing the tools mcpx serves, not a protocol error", async () => {
    const r = await call(s, "fake_echo", {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(
      "mcpx serves mcpx_exec, mcpx_call, mcpx_namespaces, mcpx_types, mcpx_search, mcpx_describe, mcpx_save_skill, _Stop, _PostCompact",
    );
  });
});

describe("the script's phases and settings from the server's own config", () => {
  test("a phase the caller leaves out comes from script.before in .mcpx.json; a phase the caller gives replaces it", async () => {
    const cfg = sandbox();
    writeConfig(cfg, ".mcpx.json", { "script.before": ['console.log("[configured before]")'], "script.suffix": ['console.log("[configured suffix]")'] });
    const own = await serve(cfg);
    try {
      const r = await call(own, "mcpx_exec", { source: 'console.log("[body]")', script: { suffix: ['console.log("[caller suffix]")'] } });
      expect((r.structuredContent as { stdout: string }).stdout).toBe("[configured before]\n[body]\n[caller suffix]\n");
    } finally {
      await own.close();
    }
  });
});

describe("the stdio channel", () => {
  test("stdout carries MCP messages only, even when the script and a hook print", async () => {
    const raw = sandbox();
    writeConfig(raw, ".mcpx.json", { mcpServers: { fake: fakeServer() } });
    const proc = Bun.spawn([MCPX, "serve"], {
      cwd: raw.dir,
      env: { ...raw.env, MCPX_HOOKS: JSON.stringify([{ on: "script", phase: "onSuccess", run: say({ advise: "noted" }) }]) },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "mcpx_exec",
          arguments: {
            source: 'console.log("printed"); console.error("on stderr"); export default () => 1',
            script: { before: ['console.log("before prints")'] },
          },
        },
      },
    ];
    proc.stdin.write(messages.map((m) => JSON.stringify(m) + "\n").join(""));
    proc.stdin.flush();
    // read until the answer to id 2, then close stdin: the server must end by itself
    const reader = proc.stdout.getReader();
    let out = "";
    while (!out.split("\n").some((l) => l.includes('"id":2'))) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    proc.stdin.end();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(await proc.exited).toBe(0);
    const lines = out.split("\n").filter((l) => l !== "");
    for (const line of lines) expect(JSON.parse(line).jsonrpc).toBe("2.0");
    const answer = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
    expect(answer.result.structuredContent.stdout).toBe("before prints\nprinted\n");
  });

  test("the server ends when its client closes stdin, and no upstream server or script is left running", async () => {
    const marker = uniqueMarker("serve-stdin");
    // unsandboxed on purpose: this is about the stdio channel's end, with a script that writes its pid
    // and carries the marker in its environment (a sandboxed one may do neither)
    const own = await serve(sb, { SERVE_E2E_MARKER: marker, MCPX_EXEC_SANDBOX: "off" });
    // start the upstream server, and leave a script running when the client goes
    expect((await call(own, "mcpx_call", { server: "fake", tool: "echo", args: { message: "up" } })).isError).toBeFalsy();
    const pidFile = join(sb.dir, `${marker}.pid`);
    const source =
      `(await import("node:fs")).writeFileSync(${JSON.stringify(pidFile)}, ` + `String(process.pid)); await new Promise(() => setInterval(() => {}, 1000))`;
    void own.client.callTool({ name: "mcpx_exec", arguments: { source } }).catch(() => {});
    // "nothing left" proves something only if the script was running: wait until it says it is, and
    // see that it carries the marker the leftover check looks for
    for (let waited = 0; !existsSync(pidFile) || readFileSync(pidFile, "utf8") === ""; waited += 20) {
      if (waited > 20_000) throw new Error("the script never started");
      await Bun.sleep(20);
    }
    expect(processesWith(marker)).toContain(Number(readFileSync(pidFile, "utf8")));
    await own.close();
    expect(await leftoverProcesses(marker, 5000)).toEqual([]);
  });
});
