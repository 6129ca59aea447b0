// The `hooks` setting: the schema of one hook object as written in config, and parseHooks, which
// turns the resolved list into Hooks or refuses the whole config when it loads. Every refusal names
// the origin (file and index), the key, what is accepted and the likely fix; nothing is dropped or
// guessed at, because a hook that silently never fires is worse than a config that does not load.
// An action's target (its program, module file or plugin tool) is checked in hook-action.ts.

import * as v from "valibot";
import { once } from "../util/once.ts";
import { McpxError } from "../errors/mcpx-error.ts";
import { parseDuration } from "../settings/duration.ts";
import { suggest } from "../util/did-you-mean.ts";
import { typeName } from "../util/json-type.ts";
import { WHEN_KEYS, type Hook } from "./hook.ts";
import { buildAction, type Fail } from "./hook-action.ts";
import { LEVELS, levelRank, phaseCeiling, phasesOf, POINT_NAMES, POINTS, type Level, type Phase, type PointName } from "./points.ts";

export class HookConfigError extends McpxError {
  /** e.g. "file:/x/.mcpx.json hooks[2]" */
  readonly origin: string;
  /** the key inside the hook object, e.g. "phase" or "run[0]"; undefined for the object as a whole */
  readonly key: string | undefined;

  constructor(init: { problem: string; origin: string; key?: string; fix: string }) {
    super(`${init.problem} in ${init.origin}${init.key === undefined ? "" : `.${init.key}`}: ${init.fix}`, "HOOK_CONFIG");
    this.origin = init.origin;
    this.key = init.key;
  }
}

/** the phases a hook object may name; prefix exists only as the script.prefix source setting */
const CONFIG_PHASES = ["before", "onSuccess", "onError", "suffix", "observe"] as const satisfies readonly Phase[];

const ACTION_KEYS = ["run", "module", "plugin", "prompt"] as const;

const HOOK_KEYS = ["on", "phase", ...ACTION_KEYS, "args", "when", "effect", "failure", "timeout", "name", "compat"] as const;

const FAILURE_MODES = ["open", "closed"] as const;

// The vocabularies people arrive with (seed 003's mapping, #81/#112's words): each wrong phase name
// gets the right one, so the error is the migration guide.
const PHASE_HINTS: Record<string, string> = {
  after: "after → onSuccess/onError, or suffix to run on both",
  pre: "pre → before",
  post: "post → onSuccess",
  finally: "finally → suffix",
  async: "async → observe",
};

// Keys copied from Claude Code settings or from a flattened `when`: say where they go instead.
const KEY_HINTS: Record<string, string> = {
  command: 'Claude Code\'s "command" string is "run" here, as an argv array (add "compat": "claude-code" for its input and output)',
  matcher: 'Claude Code\'s "matcher" is "when": {"server": GLOB, "tool": GLOB} here',
  type: "the action is the key itself: give one of run, module, plugin or prompt",
  event: 'the point is "on" here',
  point: 'the point is "on" here',
  server: 'filters go under "when": {"server": GLOB}',
  tool: 'filters go under "when": {"tool": GLOB}',
  session: 'filters go under "when": {"session": ID}',
  uri: 'filters go under "when": {"uri": GLOB}',
  async: 'use "phase": "observe" for a hook that never holds anything up',
};

const str = (what: string) => v.pipe(v.string(`must be a string: ${what}`), v.nonEmpty(`must not be empty: ${what}`));
const oneOf = (choices: readonly string[]) => (issue: v.BaseIssue<unknown>) =>
  `use one of ${choices.join(", ")}${typeof issue.input === "string" ? suggest(issue.input, choices) : ""}`;

/**
 * one hook object as written in config; parseHooks runs the friendlier checks first and the cross-key
 * ones after. Built when a hook is first parsed: a run with no hooks never pays for building it
 */
const hookObjectSchema = once(() =>
  v.strictObject({
    on: str('a point (script, call, server.start), or with phase observe an event-kind prefix or "*"'),
    phase: v.optional(v.picklist(CONFIG_PHASES, oneOf(CONFIG_PHASES)), "observe"),
    run: v.optional(
      v.pipe(
        v.array(v.string("must be a string (quote numbers)"), 'must be an argv array like ["echo","hi"]'),
        v.minLength(1, "must not be empty: give the program and its arguments"),
      ),
    ),
    module: v.optional(str("the path of a TypeScript script, relative to the config file")),
    plugin: v.optional(str('"namespace.tool", an MCP tool')),
    // a custom check rather than v.record, which accepts an array as an object with index keys
    args: v.optional(
      v.custom<Record<string, unknown>>(
        (x) => typeof x === "object" && x !== null && !Array.isArray(x),
        "must be an object: the plugin tool's fixed arguments",
      ),
    ),
    prompt: v.optional(str("the text sent to the model")),
    when: v.optional(
      v.strictObject(
        {
          server: v.optional(str("a glob of server names")),
          tool: v.optional(str("a glob of tool names")),
          session: v.optional(str("a session id")),
          uri: v.optional(str("a glob of resource URIs")),
        },
        "must be an object with server, tool, session and/or uri",
      ),
      {},
    ),
    // no default here: a claude-code compat hook's default differs (defaultEffect)
    effect: v.optional(v.picklist(LEVELS, oneOf(LEVELS))),
    failure: v.optional(v.picklist(FAILURE_MODES, oneOf(FAILURE_MODES)), "open"),
    timeout: v.optional(v.string('must be a duration string like "5s" or "250ms"')),
    name: v.optional(str("a name for `mcpx hooks list` and `mcpx hooks test`")),
    compat: v.optional(v.literal("claude-code", 'the only compat mode is "claude-code"')),
  }),
);

type HookObject = v.InferOutput<ReturnType<typeof hookObjectSchema>>;

export interface HookItem {
  value: unknown;
  /** where the item was declared, with its index: "file:/x/.mcpx.json hooks[2]" */
  origin: string;
  /** relative run and module paths resolve against this (the config file's directory, or the cwd) */
  baseDir: string;
}

/** Validates every item and returns the Hooks in order; throws HookConfigError at the first bad one. */
export function parseHooks(items: ReadonlyArray<HookItem>, env: { PATH?: string }): Hook[] {
  const hooks = items.map((item, index) => parseHook(item, index, env));
  const seen = new Map<string, string>();
  for (const hook of hooks) {
    const first = seen.get(hook.name);
    if (first !== undefined) {
      throw new HookConfigError({
        problem: `duplicate hook name "${hook.name}"`,
        origin: hook.origin,
        key: "name",
        fix: `${first} already uses it; names must be unique so \`mcpx hooks test NAME\` means one hook`,
      });
    }
    seen.set(hook.name, hook.origin);
  }
  return hooks;
}

function parseHook(item: HookItem, index: number, env: { PATH?: string }): Hook {
  const { origin } = item;
  const fail = (problem: string, key: string | undefined, fix: string): never => {
    throw new HookConfigError({ problem, origin, ...(key === undefined ? {} : { key }), fix });
  };
  const raw = item.value;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return fail(`a hook that is ${typeName(raw)}`, undefined, 'each hook is an object like {"on": "call", "phase": "before", "run": ["./check"]}');
  }
  const obj = raw as Record<string, unknown>;

  for (const key of Object.keys(obj)) {
    if ((HOOK_KEYS as readonly string[]).includes(key)) continue;
    if (key === "source") {
      fail(
        "a source action",
        "source",
        "inline source is declared only as the script.<phase> settings (script.before … " +
          "script.suffix, or --before, --prefix, --on-success, --on-error, --suffix); a hook object " +
          "takes run, module, plugin or prompt",
      );
    }
    fail(`unknown hook key "${key}"`, key, `${KEY_HINTS[key] ?? `a hook accepts ${HOOK_KEYS.join(", ")}`}${KEY_HINTS[key] ? "" : suggest(key, HOOK_KEYS)}`);
  }

  if (obj.on === undefined) {
    fail('a hook without "on"', undefined, `name a point (${POINT_NAMES.join(", ")}), or with "phase": "observe" an event-kind prefix or "*"`);
  }
  checkPhase(obj.phase, obj.on, fail);

  if (typeof obj.run === "string") {
    const words = obj.run.trim().split(/\s+/).filter(Boolean);
    fail(
      "a shell string",
      "run",
      `use an argv array like ${JSON.stringify(words.length ? words : ["echo", "hi"])}, ` +
        `or ${JSON.stringify(["sh", "-c", obj.run])} to ask for a shell explicitly`,
    );
  }

  const actions = ACTION_KEYS.filter((k) => Object.hasOwn(obj, k));
  if (actions.length === 0) {
    fail("a hook with no action", undefined, 'give exactly one of run (an argv array), module (a script path), plugin ("namespace.tool") or prompt (text)');
  }
  if (actions.length > 1) {
    fail(`a hook with ${actions.length} actions (${actions.join(", ")})`, undefined, "a hook has exactly one action: split it into one hook per action");
  }

  if (obj.when !== undefined && typeof obj.when === "object" && obj.when !== null && !Array.isArray(obj.when)) {
    for (const key of Object.keys(obj.when)) {
      if (!(WHEN_KEYS as readonly string[]).includes(key))
        fail(`unknown when key "${key}"`, `when.${key}`, `use one of ${WHEN_KEYS.join(", ")}${suggest(key, WHEN_KEYS)}`);
    }
  }

  const parsed = v.safeParse(hookObjectSchema(), obj);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = formatPath(issue.path);
    return fail(`invalid ${key ?? "hook"} ${describe(issue.input)}`, key, issue.message);
  }
  const o = parsed.output;
  const phase: Phase = o.phase;

  checkPoint(o.on, phase, o.when, fail);

  if (o.args !== undefined && !o.plugin)
    fail("args without a plugin", "args", "args are the fixed arguments of a plugin tool call; run gets argv, module and prompt get the payload");

  if (o.compat !== undefined) {
    if (!o.run)
      fail(
        `compat "${o.compat}" on a ${actions[0]} hook`,
        "compat",
        "compat applies only to run hooks (the Claude Code hook protocol is a process with stdin and an exit code)",
      );
    if (o.on !== "call" || !["before", "onSuccess", "onError"].includes(phase)) {
      fail(
        `compat "claude-code" at ${o.on}.${phase}`,
        "compat",
        "Claude Code's hook events map only the call point: before (PreToolUse), onSuccess (PostToolUse) and onError (PostToolUseFailure)",
      );
    }
  }

  const effect: Level = o.effect ?? defaultEffect(o.compat);
  if (o.failure === "closed") {
    if (levelRank(effect) < levelRank("ask")) {
      fail(
        `"failure": "closed" with effect "${effect}"`,
        "failure",
        `failing closed is a refusal, so the effect must be ask or above ` +
          `(${LEVELS.slice(LEVELS.indexOf("ask")).join(", ")}): raise the effect, or drop failure`,
      );
    }
    if (levelRank(phaseCeiling(phase)) < levelRank("ask")) {
      fail(
        `"failure": "closed" at phase ${phase}`,
        "failure",
        `a ${phase} hook cannot change the outcome, so it cannot fail closed: use before, onSuccess or onError, or drop failure`,
      );
    }
  }

  let timeoutMs: number | undefined;
  if (o.timeout !== undefined) {
    const ms = parseDuration(o.timeout);
    if (typeof ms === "string") fail("invalid timeout", "timeout", ms);
    // a hook without a bound could hold a run up forever, which the gate promises never happens
    if (ms === 0)
      fail('timeout "0"', "timeout", 'a hook always has a time limit: give a duration like "5s", or leave timeout out for the hooks.timeout setting');
    timeoutMs = ms as number;
  }

  const action = buildAction(o, item.baseDir, env, fail);
  const hook: Hook = {
    name: o.name ?? `${o.on}.${phase}#${index}`,
    on: o.on,
    phase,
    action,
    when: o.when,
    effect,
    failure: o.failure,
    origin,
  };
  if (timeoutMs !== undefined) hook.timeoutMs = timeoutMs;
  if (o.compat !== undefined) hook.compat = o.compat;
  return hook;
}

/**
 * advise, except for a claude-code compat hook: an unchanged Claude Code script must do what it does
 * there, where exit 2 or a deny blocks, ask asks and updatedInput/updatedMCPToolOutput rewrite, so its
 * default is apply (the highest of those). hooks.autonomy and autonomy.max still clamp it.
 */
function defaultEffect(compat: HookObject["compat"]): Level {
  return compat === "claude-code" ? "apply" : "advise";
}

function checkPhase(phase: unknown, on: unknown, fail: Fail): void {
  if (phase === undefined) return;
  const accepted = `use one of ${CONFIG_PHASES.join(", ")}`;
  if (typeof phase !== "string") fail(`hook phase ${describe(phase)}`, "phase", `${accepted} (a string)`);
  const p = phase as string;
  if (p === "prefix") {
    const known = typeof on === "string" && Object.hasOwn(POINTS, on) ? `; ${on} has ${phasesOf(on as PointName).join(", ")}` : "";
    fail(
      'hook phase "prefix"',
      "phase",
      `prefix is inline source that runs inside the script after the globals, declared only as the script.prefix setting (--prefix)${known}`,
    );
  }
  if ((CONFIG_PHASES as readonly string[]).includes(p)) return;
  const hint = PHASE_HINTS[p.toLowerCase()];
  fail(`unknown hook phase "${p}"`, "phase", `${accepted}${hint ? ` (${hint})` : suggest(p, CONFIG_PHASES)}`);
}

// With any phase but observe, `on` names a point that has that phase; with observe it is an
// event-kind prefix, which the bus owns, so only its shape is checked here.
function checkPoint(on: string, phase: Phase, when: Record<string, string | undefined>, fail: Fail): void {
  if (phase === "observe") return;
  if (!Object.hasOwn(POINTS, on)) {
    const dot = on.lastIndexOf(".");
    const [head, tail] = [on.slice(0, dot), on.slice(dot + 1)];
    if (dot > 0 && Object.hasOwn(POINTS, head) && (CONFIG_PHASES as readonly string[]).includes(tail)) {
      fail(`unknown hook point "${on}"`, "on", `"${on}" is a point and a phase: write "on": "${head}", "phase": "${tail}"`);
    }
    fail(
      `unknown hook point "${on}"`,
      "on",
      `use one of ${POINT_NAMES.join(", ")}${suggest(on, POINT_NAMES)}; with "phase": "observe", on is an event-kind prefix instead`,
    );
  }
  const point = on as PointName;
  const phases = phasesOf(point);
  if (!phases.includes(phase)) {
    fail(`hook phase "${phase}" on point ${point}`, "phase", `${point} has only ${phases.join(", ")}`);
  }
  const filters: readonly string[] = POINTS[point].filters;
  for (const key of Object.keys(when)) {
    if (!filters.includes(key)) {
      fail(
        `when.${key} on point ${point}`,
        `when.${key}`,
        `${filters.length ? `${point} can be filtered by ${filters.join(", ")}` : `${point} takes no when filters`}; a ${key} filter would never match there`,
      );
    }
  }
}

function formatPath(path: v.BaseIssue<unknown>["path"]): string | undefined {
  if (!path || path.length === 0) return undefined;
  let out = "";
  for (const item of path) {
    const key = item.key as string | number;
    out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`;
  }
  return out;
}

function describe(x: unknown): string {
  if (x === undefined) return "(missing)";
  const text = JSON.stringify(x);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
