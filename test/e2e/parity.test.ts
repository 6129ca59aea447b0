// One run, four doors: every run/exec flag and setting that changes what a run does is given to the
// same script locally, through `--remote`, through POST /v1/exec and through the MCP tool mcpx_exec,
// and each door must show the same effect. The cases are derived from the settings registry and the
// run/exec flags, so a new knob without a case here fails the coverage test below: that is how the
// seed's hole (phases accepted and dropped by /v1/exec and mcpx_exec) cannot come back.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { AD_HOC_FLAGS, SCRIPT_FLAGS } from "../../cmd/own-flags.ts";
import { flagName, settingsFor } from "../../lib/settings/setting-names.ts";
import { MCPX, fakeServer, sandbox } from "./harness.ts";
import { mcpx, writeConfig } from "./support.ts";

interface Envelope {
  ok: boolean;
  exitCode: number;
  result: unknown;
  stdout: string;
  stderr: string;
  error: { message: string; code?: string } | null;
  hooks: Array<{ on: string; phase: string; name?: string }>;
}

/** one behaviour-changing knob: how each door says it, and what every door must then show */
interface Case {
  /** the registry path or the flag it exercises */
  knob: string;
  /** exec snippet */
  source: string;
  /** CLI flags (local and --remote) */
  cli: string[];
  /** the same, as ExecOptions fields (/v1/exec and mcpx_exec) */
  options: Record<string, unknown>;
  check(e: Envelope): void;
  /** a knob an agent may not turn (lib/trust/door-authority.ts): mcpx_exec refuses it, naming it, instead of the effect */
  agentRefused?: string;
}

const sb = sandbox();
const SOCKET = join(sb.dir, "run", "parity.sock");

const CASES: Case[] = [
  {
    knob: "script.before",
    source: 'console.log("body")',
    cli: ["--before", 'console.log("B1")', "--before", 'console.log("B2")'],
    options: { script: { before: ['console.log("B1")', 'console.log("B2")'] } },
    check: (e) => expect(e.stdout).toBe("B1\nB2\nbody\n"),
  },
  {
    knob: "script.prefix",
    source: 'console.log("body")',
    cli: ["--prefix", 'console.log("P", typeof log)'],
    options: { script: { prefix: ['console.log("P", typeof log)'] } },
    check: (e) => expect(e.stdout).toBe("P function\nbody\n"),
  },
  {
    knob: "script.onSuccess",
    source: "export default () => 41",
    cli: ["--on-success", "result.value = (result.value as number) + 1"],
    options: { script: { onSuccess: ["result.value = (result.value as number) + 1"] } },
    check: (e) => expect(e.result).toBe(42),
  },
  {
    knob: "script.onError",
    source: 'throw new Error("boom")',
    cli: ["--on-error", 'console.log("E", (result.error as Error).message)'],
    options: { script: { onError: ['console.log("E", (result.error as Error).message)'] } },
    check: (e) => {
      expect(e.stdout).toBe("E boom\n");
      expect(e.exitCode).toBe(1);
      expect(e.error?.message).toBe("boom");
    },
  },
  {
    knob: "script.suffix",
    source: 'throw new Error("boom")',
    cli: ["--suffix", 'console.log("F")'],
    options: { script: { suffix: ['console.log("F")'] } },
    check: (e) => {
      expect(e.stdout).toBe("F\n");
      expect(e.exitCode).toBe(1);
    },
  },
  {
    knob: "script.runtime",
    source: 'export default () => typeof (globalThis as any).Deno === "undefined" ? "bun" : "deno"',
    cli: ["--runtime", "deno"],
    options: { runtime: "deno" },
    check: (e) => expect(e.result).toBe("deno"),
  },
  {
    knob: "exec.sandbox",
    // in the sandbox (the embedded QuickJS by default), a variable mcpx's environment had is not there;
    // unsandboxed, HOME is a string (Deno's sandbox refuses the read: sandbox-settings.test.ts)
    source: "export default () => { try { return typeof process.env.HOME; } catch (e) { return (e as Error).name; } }",
    cli: ["--sandbox", "on"],
    options: { sandbox: "on" },
    check: (e) => expect(e.result).toBe("undefined"),
  },
  {
    knob: "exec.timeout",
    source: 'console.log("started"); await new Promise(() => setInterval(() => {}, 1000))',
    cli: ["--timeout", "1s"],
    options: { timeoutMs: 1000 },
    check: (e) => {
      expect(e.exitCode).toBe(124);
      expect(e.stdout).toBe("started\n");
    },
  },
  {
    knob: "--env",
    source: "export default () => process.env.PARITY_VALUE",
    cli: ["--env", "PARITY_VALUE=seen"],
    options: { env: { PARITY_VALUE: "seen" } },
    check: (e) => expect(e.result).toBe("seen"),
  },
  {
    knob: "args",
    source: 'export default (args: string[]) => args.join(",")',
    cli: ["--", "a", "b"],
    options: { args: ["a", "b"] },
    check: (e) => expect(e.result).toBe("a,b"),
  },
  {
    knob: "--export",
    source: "export function pick(a: string, b: string) { return b + a }",
    cli: ["--export", "pick", "--", "x", "y"],
    options: { export: "pick", args: ["x", "y"] },
    check: (e) => expect(e.result).toBe("yx"),
  },
  {
    knob: "hooks",
    source: 'console.log("body")',
    // a plugin hook, the action every door may declare: mcpx_exec refuses a run hook (agent-door-hostile.test.ts)
    cli: ["--hooks", JSON.stringify([{ name: "parity-advice", on: "script", phase: "onSuccess", plugin: "fake.optional_args", args: { greeting: "noted" } }])],
    options: { hooks: [{ name: "parity-advice", on: "script", phase: "onSuccess", plugin: "fake.optional_args", args: { greeting: "noted" } }] },
    check: (e) => expect(e.hooks.map((h) => `${h.name} ${h.on}.${h.phase}`)).toEqual(["parity-advice script.onSuccess"]),
  },
  // The caller's limits travel with the run (ExecOptions.settings) and tighten the gate where it runs.
  // The config gives every door the same call hooks to tighten: an apply that rewrites echo's
  // message, a retry on fail's error, and a hook on add that takes 5 s.
  {
    knob: "hooks.autonomy",
    agentRefused: "hooks.autonomy",
    source: 'export default () => fake.echo({ message: "original" })',
    cli: ["--hooks-autonomy", "advise"],
    options: { settings: { "hooks.autonomy": "advise" } },
    check: (e) => expect(e.result).toBe("original"),
  },
  {
    knob: "autonomy.max",
    agentRefused: "autonomy.max",
    source: 'export default () => fake.echo({ message: "original" })',
    cli: ["--autonomy-max", "propose"],
    options: { settings: { "autonomy.max": "propose" } },
    check: (e) => expect(e.result).toBe("original"),
  },
  {
    knob: "hooks.retryBudget",
    source: "try { await fake.fail({}) } catch {}",
    cli: ["--hooks-retry-budget", "0"],
    options: { settings: { "hooks.retryBudget": 0 } },
    // one attempt: the hook's retry is dropped (the default budget of 2 gives three onError frames)
    check: (e) => expect(e.hooks.filter((h) => h.name === "parity-retry")).toHaveLength(1),
  },
  {
    knob: "hooks.timeout",
    agentRefused: "hooks.timeout",
    source: "export default () => fake.add({ a: 1, b: 2 })",
    cli: ["--hooks-timeout", "300ms"],
    options: { settings: { "hooks.timeout": "300ms" } },
    check: (e) => expect((e.hooks.find((h) => h.name === "parity-slow") as { failed?: string } | undefined)?.failed).toContain("timed out after 300ms"),
  },
  // 1s, not 300ms: the call timeout also bounds a cold server's initialize, and the local door starts
  // the server afresh, which takes far longer while other tests run: with 300ms the local
  // door sometimes failed on "could not be started" instead of the call's timeout
  {
    knob: "mcp.callTimeout",
    source: "export default () => fake.slow({ ms: 8000 })",
    cli: ["--mcp-call-timeout", "1500ms"],
    options: { settings: { "mcp.callTimeout": "1500ms" } },
    check: (e) => expect(e.error?.message).toContain("within 1500ms"),
  },
];

/**
 * Run/exec knobs that do not change what a run does, only how the CLI shows it or where it finds
 * things, each with the reason it has no parity case.
 */
const NOT_RUN_BEHAVIOUR: Record<string, string> = {
  "logging.format": "rendering on the client's stderr; the frames are the same",
  "logging.level": "rendering on the client's stderr; the frames are the same",
  "hooks.mcpTimeout":
    "travels like hooks.timeout (the same table, lib/hooks/policy.ts, unit-tested); a case " +
    "would need an allowlisted hook server that delays every call of every case",
  // the daemon's own: --remote refuses their flags (the test below), locally they are the process's settings
  "mcp.maxMessage": "the read limit of the pool that serves the call: the daemon's own",
  "mcp.startTimeout": "how long the pool's servers may take to start: the daemon's own",
  "hooks.mcpServers": "which servers' hook tools the gate calls: the daemon's own allowlist",
  "model.url": "prompt hooks are the gate's, where the run executes",
  "model.name": "prompt hooks are the gate's, where the run executes",
  "model.apiKey": "prompt hooks are the gate's, where the run executes",
  plugins: "plugins live where the gate runs (the daemon's config)",
  "config.imports": "which servers the pool has is the serving process's own (its config, its imports): --remote refuses the flag (below)",
  "exec.sandboxAllow":
    "what a sandboxed run may reach is the serving process's own: --remote refuses the flag " +
    "(below), no request can widen it; sandbox-settings.test.ts covers it",
  "exec.autoInstall":
    "whether a runtime may download packages is the serving process's own: --remote refuses the flag (below); sandbox-settings.test.ts covers it",
  "--artifacts": "where the CLI writes what the run made, on the caller's machine: artifacts.test.ts covers it",
  "--force": "with --artifacts, on the caller's machine: artifacts.test.ts covers it",
  "exec.artifactsMax":
    "how much a run's artifacts may hold is the serving process's own, as exec.workspaceQuota is: --remote refuses the flag (below); " +
    "artifacts.test.ts covers it",
  "exec.workspaceQuota":
    "how much a workspace may hold is the serving process's own, as exec.sandboxAllow is: --remote refuses the flag (below); " +
    "workspace.test.ts covers it on serve, and the agent door's refusal",
  // what the serving process writes about the runs it serves, in its own state directory
  "audit.enabled": "whether the serving process keeps its audit log: --remote refuses the flag (below); audit.test.ts covers every door",
  "audit.values": "what the serving process's audit log holds: --remote refuses the flag (below); audit.test.ts covers it",
  "audit.maxSize": "when the serving process's audit log rotates: --remote refuses the flag (below); audit.test.ts covers it",
  "audit.keep": "how many rotated files the serving process keeps: --remote refuses the flag (below); unit-tested (test/unit/audit.test.ts)",
  "exec.sandboxEngine":
    "the engine of a serving process's sandbox is its own, as exec.sandboxAllow is: --remote refuses the flag (below); " +
    "sandbox-hostile.test.ts runs every door on both engines",
  "exec.maxHeap": "the heap limit of the runtimes the serving process starts is its own: --remote refuses the flag (below); serve-limits.test.ts covers it",
  "hooks.observeGrace": "how long the process that ends waits for its own observe hooks: observe-grace.test.ts covers it",
  "daemon.address": "how --remote finds the daemon",
  "daemon.token": "how --remote authenticates",
  "daemon.autoStart": "whether --remote starts a daemon when none answers: daemon-lifecycle.test.ts covers it",
  "--config": "which config file the client reads",
  "--remote": "the door itself",
  // ad-hoc servers (oneshot.test.ts): which servers the local pool has; --remote refuses them, and
  // /v1/exec and mcpx_exec take no server definitions (the daemon's config is its own)
  "--stdio": "an ad-hoc server of the local pool: --remote refuses it (oneshot.test.ts), the other doors take servers from the daemon's config",
  "--http-url": "an ad-hoc server of the local pool: --remote refuses it (oneshot.test.ts), the other doors take servers from the daemon's config",
  "--name": "names the ad-hoc server of --stdio/--http-url",
};

/** a run through one door: its envelope, or undefined where the door refused the case (agentRefused) */
type Door = (c: Case) => Promise<Envelope | undefined>;
let daemon: ReturnType<typeof Bun.spawn> | undefined;
let mcp: Client | undefined;

const DOORS: Record<string, Door> = {
  local: async (c) => JSON.parse((await mcpx(sb, ["exec", "--json", ...withSource(c)])).stdout),
  remote: async (c) => JSON.parse((await mcpx(sb, ["exec", "--remote", "--json", "--daemon-address", SOCKET, ...withSource(c)])).stdout),
  "POST /v1/exec": async (c) => {
    const res = await fetch("http://localhost/v1/exec", {
      unix: SOCKET,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: c.source, ...c.options }),
    } as RequestInit);
    return (await res.json()) as Envelope;
  },
  mcpx_exec: async (c) => {
    const r = (await mcp!.callTool({ name: "mcpx_exec", arguments: { source: c.source, ...c.options } })) as {
      structuredContent?: Envelope;
      content?: Array<{ text?: string }>;
    };
    if (c.agentRefused) {
      // parity of behaviour, not of authority: the agent's door says no, and runs nothing
      expect(r.content?.[0]?.text).toContain(`mcpx_exec refused settings: an agent's run may not set "${c.agentRefused}"`);
      return undefined;
    }
    return r.structuredContent!;
  },
};

/** CLI argv: flags, then the snippet; positional script args (after --) last */
function withSource(c: Case): string[] {
  const dd = c.cli.indexOf("--");
  return dd < 0 ? [...c.cli, c.source] : [...c.cli.slice(0, dd), c.source, ...c.cli.slice(dd)];
}

beforeAll(async () => {
  writeConfig(sb, ".mcpx.json", {
    mcpServers: { fake: fakeServer() },
    hooks: [
      {
        name: "parity-rewrite",
        on: "call",
        phase: "before",
        when: { tool: "echo" },
        run: ["sh", "-c", `cat > /dev/null; echo '{"apply": {"message": "rewritten"}}'`],
        effect: "apply",
      },
      {
        name: "parity-retry",
        on: "call",
        phase: "onError",
        when: { tool: "fail" },
        run: ["sh", "-c", `cat > /dev/null; echo '{"run": "retry"}'`],
        effect: "run",
      },
      { name: "parity-slow", on: "call", phase: "before", when: { tool: "add" }, run: ["sh", "-c", "cat > /dev/null; sleep 5"] },
    ],
  });
  daemon = Bun.spawn([MCPX, "daemon", "--daemon-address", SOCKET], { cwd: sb.dir, env: sb.env, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const decoder = new TextDecoder();
  let said = "";
  for await (const chunk of daemon.stderr as ReadableStream<Uint8Array>) {
    said += decoder.decode(chunk);
    if (said.includes("listening")) break;
  }
  mcp = new Client({ name: "parity", version: "1" });
  await mcp.connect(new StdioClientTransport({ command: MCPX, args: ["serve"], cwd: sb.dir, env: sb.env, stderr: "ignore" }));
});

afterAll(async () => {
  await mcp?.close();
  daemon?.kill("SIGTERM");
  await daemon?.exited;
});

describe("every knob that changes a run has a parity case", () => {
  test("each run/exec setting is covered by a case or named as not run behaviour", () => {
    const knobs = [
      ...new Set([...settingsFor("run"), ...settingsFor("exec")].map((s) => s.path)),
      ...Object.keys({ ...SCRIPT_FLAGS, ...AD_HOC_FLAGS }).map((f) => `--${f}`),
      "--config",
    ];
    const uncovered = knobs.filter((k) => !CASES.some((c) => c.knob === k) && !OUTPUT_KNOBS.includes(k) && !(k in NOT_RUN_BEHAVIOUR));
    expect(uncovered).toEqual([]);
  });
});

describe("--remote refuses a flag that cannot travel, naming it", () => {
  // the daemon's own settings: a flag for one with --remote would otherwise be accepted and dropped
  const staying = [...new Set([...settingsFor("run"), ...settingsFor("exec")])].filter((d) => d.remote === undefined);
  // config.imports checks its items when the session opens, so its sample must be a valid one
  const sample = (d: (typeof staying)[number]) =>
    d.path === "config.imports"
      ? "none"
      : d.kind === "enum"
        ? d.values![0]!
        : d.kind === "int"
          ? "1"
          : d.kind === "duration"
            ? "1s"
            : d.kind === "json"
              ? "{}"
              : "x";
  for (const d of staying) {
    test(`--${flagName(d.path)} with --remote is exit 2 naming the flag and ${d.path}`, async () => {
      // a bool setting's flag is a switch: given alone, it takes no value
      const flag = d.kind === "bool" ? [`--${flagName(d.path)}`] : [`--${flagName(d.path)}`, sample(d)];
      const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", SOCKET, ...flag, "1"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--${flagName(d.path)} does not travel with --remote`);
      expect(r.stderr).toContain(d.path);
    });
  }

  test("a server.start hook given by --hooks with --remote is exit 2 (only script and call hooks travel)", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--remote",
      "--daemon-address",
      SOCKET,
      "--hooks",
      JSON.stringify([{ name: "mine", on: "server.start", phase: "before", run: ["true"] }]),
      "1",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hook mine (--hooks) is on server.start.before, which cannot travel with --remote");
  });

  test("without a flag the same config-file values are no error", async () => {
    const r = await mcpx(sb, ["exec", "--remote", "--daemon-address", SOCKET, "console.log(1)"]);
    expect(r.code).toBe(0);
  });
});

for (const c of CASES) {
  describe(`${c.knob} has the same effect through every door`, () => {
    for (const [door, run] of Object.entries(DOORS)) {
      test(door, async () => {
        const e = await run(c);
        if (e !== undefined) c.check(e);
      });
    }
  });
}

// ExecOptions.output: how a door answers. Every door gives the same frames, the same envelope and the
// same stdout in the mode it is asked for (--json is --output json).
const OUTPUT_KNOBS = ["--output", "--json", "--delivery"];
const OUTPUT_SOURCE = 'console.log("a"); log("b"); emit(1);\nexport default () => 2';

/** each door's answer in one output mode, as text: what its caller reads */
const OUTPUT_DOORS: Record<string, (mode: string) => Promise<string>> = {
  local: async (mode) => (await mcpx(sb, ["exec", "--output", mode, OUTPUT_SOURCE])).stdout,
  remote: async (mode) => (await mcpx(sb, ["exec", "--remote", "--output", mode, "--daemon-address", SOCKET, OUTPUT_SOURCE])).stdout,
  "POST /v1/exec": async (mode) => {
    const res = await fetch("http://localhost/v1/exec", {
      unix: SOCKET,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: OUTPUT_SOURCE, output: mode }),
    } as RequestInit);
    return res.text();
  },
  mcpx_exec: async (mode) => {
    const r = (await mcp!.callTool({ name: "mcpx_exec", arguments: { source: OUTPUT_SOURCE, output: mode } })) as { content: Array<{ text: string }> };
    return r.content[0]!.text;
  },
};

describe("--output has the same effect through every door", () => {
  for (const [door, answer] of Object.entries(OUTPUT_DOORS)) {
    test(`${door}: stream is the run's frames as NDJSON, in the same order`, async () => {
      const frames = (await answer("stream"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; data?: string; value?: unknown });
      expect(frames.map((f) => f.type)).toEqual(["start", "stdout", "log", "emit", "result", "end"]);
      expect(frames[1]!.data).toBe("a\n");
      expect(frames[4]!.value).toBe(2);
    });

    test(`${door}: json is one envelope`, async () => {
      expect(JSON.parse(await answer("json"))).toMatchObject({
        ok: true,
        exitCode: 0,
        stdout: "a\n",
        result: 2,
        emits: [1],
        logs: [expect.objectContaining({ message: "b" })],
      });
    });

    test(`${door}: text is what \`mcpx exec\` prints on stdout (mcpx_exec labels the result for the agent)`, async () => {
      // the script's stdout, then its returned value; logs and emits are not in it (the CLI puts them on stderr)
      expect(await answer("text")).toBe(door === "mcpx_exec" ? "a\nresult: 2" : "a\n2\n");
    });
  }
});

// ExecOptions.delivery: "stream" adds each artifact's bytes after end, on every door that streams frames.
const DELIVERY_SOURCE = 'await artifact("a.bin", Uint8Array.from([0, 1, 2, 255])); await artifact("b.txt", "bee"); return 1';

/** each door's frames of one run asked for delivery "stream", in output "stream" */
const DELIVERY_DOORS: Record<string, () => Promise<string>> = {
  local: async () => (await mcpx(sb, ["exec", "--output", "stream", "--delivery", "stream", DELIVERY_SOURCE])).stdout,
  remote: async () => (await mcpx(sb, ["exec", "--remote", "--output", "stream", "--delivery", "stream", "--daemon-address", SOCKET, DELIVERY_SOURCE])).stdout,
  "POST /v1/exec": async () => {
    const res = await fetch("http://localhost/v1/exec", {
      unix: SOCKET,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ source: DELIVERY_SOURCE, output: "stream", delivery: "stream" }),
    } as RequestInit);
    return res.text();
  },
  mcpx_exec: async () => {
    const r = (await mcp!.callTool({ name: "mcpx_exec", arguments: { source: DELIVERY_SOURCE, output: "stream", delivery: "stream" } })) as {
      content: Array<{ text: string }>;
    };
    return r.content[0]!.text;
  },
};

describe("--delivery stream has the same effect through every door", () => {
  for (const [door, answer] of Object.entries(DELIVERY_DOORS)) {
    test(`${door}: each artifact's bytes follow end, chunk by chunk, then its end`, async () => {
      const frames = (await answer())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; id?: string; name?: string; data?: string });
      const types = frames.map((f) => f.type);
      expect(types).toEqual(["start", "artifact", "artifact", "result", "end", "artifact.chunk", "artifact.end", "artifact.chunk", "artifact.end"]);
      const ids = frames.filter((f) => f.type === "artifact").map((f) => f.id);
      const bytes = (id: string | undefined) =>
        Buffer.concat(frames.filter((f) => f.type === "artifact.chunk" && f.id === id).map((f) => Buffer.from(f.data!, "base64")));
      expect([...bytes(ids[0])]).toEqual([0, 1, 2, 255]);
      expect(bytes(ids[1]).toString()).toBe("bee");
    });
  }
});
