// A hook object's action, checked against where it points when the config loads: a run program
// found on PATH or at its path and executable, a module file that is there, a plugin target spelt
// "namespace.tool" that is not a lifecycle hook tool. The schema (schema.ts) has checked the shapes.

import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { findExecutable } from "../paths/executable.ts";
import type { HookAction } from "./hook.ts";

/** refuses the hook: what is wrong, the key inside the hook object, and the likely fix */
export type Fail = (problem: string, key: string | undefined, fix: string) => never;

/** the action keys of a hook object, exactly one of run, module, plugin (with args) and prompt given */
export interface ActionKeys {
  run?: string[];
  module?: string;
  plugin?: string;
  args?: Record<string, unknown>;
  prompt?: string;
}

export function buildAction(o: ActionKeys, baseDir: string, env: { PATH?: string }, fail: Fail): HookAction {
  if (o.run) {
    const cmd = o.run[0]!;
    if (cmd === "") fail("an empty program name", "run[0]", "the first element of run is the program to start");
    const found = findExecutable(cmd, baseDir, env.PATH);
    if (!found.ok) {
      const problem = `run executable "${cmd}" not found`;
      switch (found.problem) {
        case "not-on-path":
          fail(problem, "run[0]", `it is not on PATH (searched ${env.PATH ? env.PATH : "nothing: PATH is not set"}): install it, or give its path`);
          break;
        case "missing":
          fail(problem, "run[0]", `${found.path} does not exist (a relative path is resolved against ${baseDir})`);
          break;
        case "directory":
          fail(`run executable "${cmd}" is a directory`, "run[0]", `${found.path} is a directory: name the program inside it`);
          break;
        case "not-executable":
          fail(
            `run executable "${cmd}" is not executable`,
            "run[0]",
            `${found.path} has no execute bit: chmod +x it, or run it through its interpreter, e.g. ${JSON.stringify(["sh", found.path])}`,
          );
      }
    }
    // a path is made absolute so the hook runs the same file whatever directory it is started in;
    // a bare name stays a name, looked up on PATH when it is spawned
    return { kind: "run", argv: cmd.includes("/") ? [found.ok ? found.path : cmd, ...o.run.slice(1)] : [...o.run] };
  }
  if (o.module) {
    const path = isAbsolute(o.module) ? o.module : resolve(baseDir, o.module);
    if (!existsSync(path)) fail(`module "${o.module}" not found`, "module", `${path} does not exist (a relative path is resolved against ${baseDir})`);
    if (statSync(path).isDirectory()) fail(`module "${o.module}" is a directory`, "module", `${path} is a directory: name the script file`);
    return { kind: "module", path };
  }
  if (o.plugin) {
    const m = /^([^.\s]+)\.(\S+)$/.exec(o.plugin);
    if (!m) fail(`invalid plugin "${o.plugin}"`, "plugin", 'use "namespace.tool", the way a script calls it, e.g. "slack.post_message"');
    const [, server, tool] = m!;
    // `_` tools are lifecycle hooks invoked at their own points under MCP_HOOK_SERVERS; naming one
    // here would call it around that allowlist
    if (tool!.startsWith("_")) {
      fail(
        `plugin "${o.plugin}" names a lifecycle hook tool`,
        "plugin",
        `${tool} is invoked at its point only when MCP_HOOK_SERVERS allows ${server}: name a regular tool`,
      );
    }
    return { kind: "plugin", target: o.plugin, server: server!, tool: tool!, ...(o.args === undefined ? {} : { args: o.args }) };
  }
  return { kind: "prompt", text: o.prompt! };
}
