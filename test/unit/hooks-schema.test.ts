// The hooks setting's schema and parseHooks: what a valid hook object becomes, and every refusal
// at load time — each must name the origin (file and index), the key, what is accepted and the fix.
// Filesystem checks run in a temp directory with an explicit PATH, so nothing on the machine leaks in.

import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findExecutable } from "../../lib/paths/executable.ts";
import type { Hook } from "../../lib/hooks/hook.ts";
import { HookConfigError, parseHooks } from "../../lib/hooks/schema.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "mcpx-hooks-schema-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bin = join(root, "bin");
const otherBin = join(root, "other-bin");
mkdirSync(bin);
mkdirSync(otherBin);
mkdirSync(join(root, "guards"));
const script = (path: string, mode: number) => {
  writeFileSync(path, "#!/bin/sh\nexit 0\n");
  chmodSync(path, mode);
};
script(join(bin, "guard"), 0o755);
script(join(bin, "shadowed"), 0o644); // not executable, early on PATH
script(join(otherBin, "shadowed"), 0o755);
script(join(bin, "plain"), 0o644);
script(join(root, "guards", "check.sh"), 0o755);
script(join(root, "guards", "notes.txt"), 0o644);
writeFileSync(join(root, "hook.ts"), "export default () => ({})\n");

const PATH = `${bin}:${otherBin}`;
const ORIGIN = `file:${root}/.mcpx.json hooks[2]`;

function parseOne(value: unknown, env: { PATH?: string } = { PATH }): Hook {
  return parseHooks([{ value, origin: ORIGIN, baseDir: root }], env)[0]!;
}

function refusal(value: unknown, env: { PATH?: string } = { PATH }): HookConfigError {
  try {
    parseOne(value, env);
  } catch (err) {
    if (err instanceof HookConfigError) return err;
    throw err;
  }
  throw new Error("expected a HookConfigError, the hook was accepted");
}

describe("parseHooks accepts", () => {
  const table: Array<{ name: string; value: Record<string, unknown>; hook: Partial<Hook> }> = [
    {
      name: "a minimal hook takes every default: observe, advise, open, no when, a derived name",
      value: { on: "call", run: ["guard"] },
      hook: {
        name: "call.observe#0",
        on: "call",
        phase: "observe",
        effect: "advise",
        failure: "open",
        when: {},
        action: { kind: "run", argv: ["guard"] },
        origin: ORIGIN,
      },
    },
    {
      name: "a bare program name stays a name, looked up on PATH when spawned",
      value: { on: "call", phase: "before", run: ["guard", "--strict", ""] },
      hook: { action: { kind: "run", argv: ["guard", "--strict", ""] } },
    },
    {
      name: "a relative program path becomes absolute against the config's directory",
      value: { on: "call", phase: "before", run: ["./guards/check.sh", "x"] },
      hook: { action: { kind: "run", argv: [join(root, "guards", "check.sh"), "x"] } },
    },
    {
      name: "a module path becomes absolute",
      value: { on: "script", phase: "onError", module: "hook.ts" },
      hook: { action: { kind: "module", path: join(root, "hook.ts") } },
    },
    {
      name: "a plugin splits into namespace and tool and keeps its fixed args",
      value: { on: "script", phase: "onError", plugin: "slack.post_message", args: { channel: "#runs" } },
      hook: { action: { kind: "plugin", target: "slack.post_message", server: "slack", tool: "post_message", args: { channel: "#runs" } } },
    },
    {
      name: "a plugin tool may itself contain dots; the namespace ends at the first",
      value: { on: "call", phase: "suffix", plugin: "fs.read.file" },
      hook: { action: { kind: "plugin", target: "fs.read.file", server: "fs", tool: "read.file" } },
    },
    {
      name: "a prompt keeps its text",
      value: { on: "call", phase: "onSuccess", prompt: "Is @result safe?" },
      hook: { action: { kind: "prompt", text: "Is @result safe?" } },
    },
    {
      name: "when filters, effect, failure closed, a timeout and a name are all carried",
      value: {
        on: "call",
        phase: "before",
        run: ["guard"],
        when: { server: "fs*", tool: "delete_*", session: "s1" },
        effect: "refuse",
        failure: "closed",
        timeout: "250ms",
        name: "no-deletes",
      },
      hook: { name: "no-deletes", when: { server: "fs*", tool: "delete_*", session: "s1" }, effect: "refuse", failure: "closed", timeoutMs: 250 },
    },
    {
      name: "a claude-code compat run hook at call.before is accepted",
      value: { on: "call", phase: "before", run: ["guard"], compat: "claude-code", effect: "apply" },
      hook: { compat: "claude-code", effect: "apply" },
    },
    {
      name: "a claude-code compat hook without an effect may do what Claude Code lets it: block, ask and rewrite (apply)",
      value: { on: "call", phase: "before", run: ["guard"], compat: "claude-code" },
      hook: { compat: "claude-code", effect: "apply" },
    },
    {
      name: "a claude-code compat hook keeps an effect it declares",
      value: { on: "call", phase: "before", run: ["guard"], compat: "claude-code", effect: "advise" },
      hook: { compat: "claude-code", effect: "advise" },
    },
    {
      name: "an observe hook takes any event-kind prefix and every when key",
      value: { on: "call.finished", run: ["guard"], when: { uri: "file:///*", server: "x" } },
      hook: { on: "call.finished", phase: "observe", when: { uri: "file:///*", server: "x" } },
    },
    {
      name: 'an observe hook on "*" is accepted',
      value: { on: "*", run: ["guard"] },
      hook: { on: "*", name: "*.observe#0" },
    },
    {
      name: "server.start takes a server filter",
      value: { on: "server.start", phase: "onSuccess", run: ["guard"], when: { server: "everything" }, effect: "ask", failure: "closed" },
      hook: { on: "server.start", phase: "onSuccess", effect: "ask" },
    },
  ];
  for (const row of table) {
    test(row.name, () => {
      expect(parseOne(row.value)).toMatchObject(row.hook);
    });
  }

  test("derived names use each item's index, so two unnamed hooks on one place differ", () => {
    const hooks = parseHooks(
      [
        { value: { on: "call", phase: "before", run: ["guard"] }, origin: "a hooks[0]", baseDir: root },
        { value: { on: "call", phase: "before", run: ["guard"] }, origin: "a hooks[1]", baseDir: root },
      ],
      { PATH },
    );
    expect(hooks.map((h) => h.name)).toEqual(["call.before#0", "call.before#1"]);
  });

  test("a timeout is absent when not given, so the hooks.timeout setting applies", () => {
    expect(parseOne({ on: "call", run: ["guard"] }).timeoutMs).toBeUndefined();
  });
});

describe("parseHooks refuses when the config loads", () => {
  const table: Array<{ name: string; value: unknown; says: string[]; key?: string; env?: { PATH?: string } }> = [
    {
      name: "a shell string in run is refused with the argv spelling and the explicit shell",
      value: { on: "call", phase: "before", run: "echo hi" },
      key: "run",
      says: [`a shell string in ${ORIGIN}.run`, 'use an argv array like ["echo","hi"]', '["sh","-c","echo hi"] to ask for a shell explicitly'],
    },
    {
      name: 'phase "after" gets the mapping hint of the design',
      value: { on: "call", phase: "after", run: ["guard"] },
      key: "phase",
      says: [
        `unknown hook phase "after" in ${ORIGIN}.phase: use one of before, onSuccess, onError, ` +
          `suffix, observe (after → onSuccess/onError, or suffix to run on both)`,
      ],
    },
    { name: "phase pre maps to before", value: { on: "call", phase: "pre", run: ["guard"] }, says: ["(pre → before)"] },
    { name: "phase post maps to onSuccess", value: { on: "call", phase: "post", run: ["guard"] }, says: ["(post → onSuccess)"] },
    { name: "phase finally maps to suffix", value: { on: "call", phase: "finally", run: ["guard"] }, says: ["(finally → suffix)"] },
    { name: "phase async maps to observe", value: { on: "call", phase: "async", run: ["guard"] }, says: ["(async → observe)"] },
    { name: "a near-miss phase gets a did-you-mean", value: { on: "call", phase: "onsuccess", run: ["guard"] }, says: ["(did you mean onSuccess?)"] },
    {
      name: "a phase that is not a string is refused",
      value: { on: "call", phase: 3, run: ["guard"] },
      key: "phase",
      says: ["hook phase 3", "use one of before"],
    },
    {
      name: "phase prefix is refused: it is only the script.prefix source setting",
      value: { on: "script", phase: "prefix", run: ["guard"] },
      key: "phase",
      says: ['hook phase "prefix"', "declared only as the script.prefix setting (--prefix)", "script has before, onSuccess, onError, suffix"],
    },
    {
      name: "call.prefix is refused listing call's phases",
      value: { on: "call", phase: "prefix", run: ["guard"] },
      says: ["script.prefix setting", "call has before, onSuccess, onError, suffix"],
    },
    {
      name: "a source key is refused: inline source is declared only as script.<phase> settings",
      value: { on: "script", phase: "before", source: "console.log(1)" },
      key: "source",
      says: [`a source action in ${ORIGIN}.source`, "only as the script.<phase> settings", "--before"],
    },
    {
      name: "a phase the point does not have lists the point's phases (server.start.suffix)",
      value: { on: "server.start", phase: "suffix", run: ["guard"] },
      key: "phase",
      says: ['hook phase "suffix" on point server.start', "server.start has only before, onSuccess, onError"],
    },
    {
      name: "an unknown point lists the points and suggests the nearest",
      value: { on: "calls", phase: "before", run: ["guard"] },
      key: "on",
      says: [
        'unknown hook point "calls"',
        "use one of script, call, resource.read, prompt.get, server.start, agent.stop, agent.compact (did you mean call?)",
        '"phase": "observe"',
      ],
    },
    {
      name: "a point and phase written together in on are split for the user",
      value: { on: "call.before", phase: "before", run: ["guard"] },
      says: ['write "on": "call", "phase": "before"'],
    },
    {
      name: "a hook without on is refused",
      value: { phase: "before", run: ["guard"] },
      says: ['a hook without "on"', "script, call, resource.read, prompt.get, server.start"],
    },
    { name: "an empty on is refused", value: { on: "", run: ["guard"] }, key: "on", says: ["must not be empty"] },
    {
      name: "failure closed below ask is refused: failing closed is a refusal",
      value: { on: "call", phase: "before", run: ["guard"], failure: "closed" },
      key: "failure",
      says: ['"failure": "closed" with effect "advise"', "failing closed is a refusal", "ask, refuse, propose, apply, run"],
    },
    {
      name: "failure closed at suffix is refused even with a refusing effect",
      value: { on: "call", phase: "suffix", run: ["guard"], failure: "closed", effect: "refuse" },
      says: ['"failure": "closed" at phase suffix', "cannot change the outcome"],
    },
    {
      name: "failure closed at observe is refused",
      value: { on: "call", run: ["guard"], failure: "closed", effect: "refuse" },
      says: ['"failure": "closed" at phase observe'],
    },
    { name: "an unknown failure mode is refused", value: { on: "call", run: ["guard"], failure: "shut" }, key: "failure", says: ["use one of open, closed"] },
    {
      name: "a hook with no action is refused listing the four",
      value: { on: "call", phase: "before" },
      says: [`a hook with no action in ${ORIGIN}:`, "run (an argv array), module (a script path), plugin", "prompt (text)"],
    },
    {
      name: "a hook with two actions is refused naming them",
      value: { on: "call", phase: "before", run: ["guard"], prompt: "hi" },
      says: ["a hook with 2 actions (run, prompt)", "split it"],
    },
    {
      name: "a run program not on PATH names it and the PATH searched",
      value: { on: "call", phase: "before", run: ["no-such-program"] },
      key: "run[0]",
      says: [`run executable "no-such-program" not found in ${ORIGIN}.run[0]`, `searched ${PATH}`],
    },
    {
      name: "a run program with PATH unset says so",
      value: { on: "call", phase: "before", run: ["guard"] },
      env: {},
      says: ["PATH is not set"],
    },
    {
      name: "a run program found only as a non-executable file says to chmod it",
      value: { on: "call", phase: "before", run: ["plain"] },
      says: ['run executable "plain" is not executable', join(bin, "plain"), "chmod +x"],
    },
    {
      name: "a run path that does not exist names the resolved path and the base",
      value: { on: "call", phase: "before", run: ["./guards/missing.sh"] },
      says: [join(root, "guards", "missing.sh"), "does not exist", `resolved against ${root}`],
    },
    {
      name: "a run path to a non-executable file is refused",
      value: { on: "call", phase: "before", run: ["guards/notes.txt"] },
      says: ["is not executable", join(root, "guards", "notes.txt")],
    },
    {
      name: "a run path to a directory is refused",
      value: { on: "call", phase: "before", run: ["./guards"] },
      says: ["is a directory"],
    },
    { name: "an empty argv is refused", value: { on: "call", run: [] }, key: "run", says: ["must not be empty"] },
    { name: "an empty program name is refused", value: { on: "call", run: [""] }, key: "run[0]", says: ["an empty program name"] },
    {
      name: "a non-string argument is refused at its index",
      value: { on: "call", run: ["guard", 5] },
      key: "run[1]",
      says: ["invalid run[1] 5", "quote numbers"],
    },
    {
      name: "a module that does not exist names the resolved path",
      value: { on: "script", phase: "before", module: "hooks/nope.ts" },
      key: "module",
      says: ['module "hooks/nope.ts" not found', join(root, "hooks", "nope.ts")],
    },
    { name: "a module that is a directory is refused", value: { on: "script", phase: "before", module: "guards" }, says: ["is a directory"] },
    {
      name: "a plugin that is not namespace.tool is refused",
      value: { on: "call", phase: "before", plugin: "post_message" },
      key: "plugin",
      says: ['invalid plugin "post_message"', '"namespace.tool"'],
    },
    { name: "a plugin with an empty tool is refused", value: { on: "call", plugin: "slack." }, says: ['invalid plugin "slack."'] },
    {
      name: "a plugin naming a _ hook tool is refused: those run only under MCP_HOOK_SERVERS",
      value: { on: "call", phase: "before", plugin: "guard._PreToolUse" },
      says: ["names a lifecycle hook tool", "MCP_HOOK_SERVERS"],
    },
    { name: "args without a plugin are refused", value: { on: "call", run: ["guard"], args: { a: 1 } }, key: "args", says: ["args without a plugin"] },
    { name: "args that are not an object are refused", value: { on: "call", plugin: "a.b", args: [1] }, key: "args", says: ["must be an object"] },
    {
      name: "compat on a plugin hook is refused",
      value: { on: "call", phase: "before", plugin: "a.b", compat: "claude-code" },
      key: "compat",
      says: ['compat "claude-code" on a plugin hook', "only to run hooks"],
    },
    {
      name: "compat away from the call point is refused",
      value: { on: "script", phase: "before", run: ["guard"], compat: "claude-code" },
      says: ['compat "claude-code" at script.before', "PreToolUse"],
    },
    { name: "compat at call.suffix is refused", value: { on: "call", phase: "suffix", run: ["guard"], compat: "claude-code" }, says: ["at call.suffix"] },
    {
      name: "an unknown compat mode is refused",
      value: { on: "call", phase: "before", run: ["guard"], compat: "cursor" },
      key: "compat",
      says: ['"claude-code"'],
    },
    {
      name: "an unknown effect lists the levels and suggests the nearest",
      value: { on: "call", run: ["guard"], effect: "refuze" },
      key: "effect",
      says: ['invalid effect "refuze"', "use one of off, advise, ask, refuse, propose, apply, run (did you mean refuse?)"],
    },
    {
      name: "a bare-number timeout is refused",
      value: { on: "call", run: ["guard"], timeout: "30" },
      key: "timeout",
      says: ['"30" is not a duration', "250ms"],
    },
    { name: "a numeric timeout is refused", value: { on: "call", run: ["guard"], timeout: 5 }, key: "timeout", says: ['like "5s"'] },
    {
      name: "a zero timeout is refused: every hook has a bound",
      value: { on: "call", run: ["guard"], timeout: "0" },
      key: "timeout",
      says: ["always has a time limit"],
    },
    {
      name: "an unknown key names the accepted ones",
      value: { on: "call", run: ["guard"], colour: "red" },
      key: "colour",
      says: ['unknown hook key "colour"', "a hook accepts on, phase, run, module, plugin, prompt, args, when, effect, failure, timeout, name, compat"],
    },
    { name: "a near-miss key gets a did-you-mean", value: { on: "call", run: ["guard"], effct: "refuse" }, says: ["(did you mean effect?)"] },
    { name: "Claude Code's command key says to use run", value: { on: "call", command: "./x" }, key: "command", says: ['"run" here, as an argv array'] },
    { name: "a top-level tool filter says to put it under when", value: { on: "call", run: ["guard"], tool: "x" }, says: ['"when": {"tool": GLOB}'] },
    {
      name: "an unknown when key lists the accepted ones",
      value: { on: "call", run: ["guard"], when: { tools: "x" } },
      key: "when.tools",
      says: ['unknown when key "tools"', "server, tool, session, uri (did you mean tool?)"],
    },
    {
      name: "a when filter the point cannot have is refused (tool on script)",
      value: { on: "script", phase: "before", run: ["guard"], when: { tool: "x" } },
      key: "when.tool",
      says: ["script can be filtered by session", "would never match"],
    },
    {
      name: "a when filter that is not a string is refused",
      value: { on: "call", run: ["guard"], when: { server: 1 } },
      key: "when.server",
      says: ["must be a string"],
    },
    { name: "a when that is not an object is refused", value: { on: "call", run: ["guard"], when: "fs" }, key: "when", says: ["must be an object"] },
    { name: "an empty name is refused", value: { on: "call", run: ["guard"], name: "" }, key: "name", says: ["must not be empty"] },
    { name: "a hook that is not an object is refused", value: "call.before", says: [`a hook that is a string in ${ORIGIN}:`, "each hook is an object"] },
    { name: "a null hook is refused", value: null, says: ["a hook that is null"] },
  ];
  for (const row of table) {
    test(row.name, () => {
      const err = refusal(row.value, row.env);
      expect(err.name).toBe("HookConfigError");
      expect(err.origin).toBe(ORIGIN);
      expect(err.message).toContain(ORIGIN);
      if (row.key !== undefined) expect(err.key).toBe(row.key);
      for (const s of row.says) expect(err.message).toContain(s);
    });
  }

  test("two hooks with one name are refused naming both origins", () => {
    const item = (i: number) => ({ value: { on: "call", run: ["guard"], name: "dup" }, origin: `f hooks[${i}]`, baseDir: root });
    expect(() => parseHooks([item(0), item(1)], { PATH })).toThrow('duplicate hook name "dup" in f hooks[1].name: f hooks[0] already uses it');
  });

  test("the first bad item stops the load, whatever comes after", () => {
    const items = [
      { value: { on: "call", run: ["guard"] }, origin: "f hooks[0]", baseDir: root },
      { value: { on: "call", run: "x" }, origin: "f hooks[1]", baseDir: root },
      { value: { on: "nope", phase: "before", run: ["guard"] }, origin: "f hooks[2]", baseDir: root },
    ];
    expect(() => parseHooks(items, { PATH })).toThrow("a shell string in f hooks[1].run");
  });
});

describe("findExecutable", () => {
  test("a non-executable file early on PATH does not hide an executable one later", () => {
    expect(findExecutable("shadowed", root, PATH)).toEqual({ ok: true, path: join(otherBin, "shadowed") });
  });

  test("empty PATH entries are skipped rather than read as the current directory", () => {
    expect(findExecutable("check.sh", join(root, "guards"), `::${bin}`)).toEqual({ ok: false, problem: "not-on-path" });
  });

  test("an absolute path is used as it is", () => {
    expect(findExecutable(join(bin, "guard"), "/nowhere", undefined)).toEqual({ ok: true, path: join(bin, "guard") });
  });
});
