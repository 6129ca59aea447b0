// session.get is typed by the settings registry: the path must be a declared setting and the value
// has its kind's type. The @ts-expect-error lines are the specification `make typecheck` checks: if
// a misspelt or mistyped read compiled, the directive would be unused and typecheck would fail.

import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSession, type Session } from "../../lib/session/session.ts";
import { SETTINGS, type SettingPath, type SettingValue } from "../../lib/settings/registry.ts";
import { removeTempRoots, tempRoot, write } from "./temp-files.ts";
import { trustFile } from "../../lib/trust/trust-files.ts";

afterAll(removeTempRoots);

/** a session over one config file in a fresh directory, with nothing from this machine's environment */
function session(config: Record<string, unknown> = {}, env: Record<string, string> = {}): Session {
  const root = tempRoot();
  const file = write(join(root, ".mcpx.json"), JSON.stringify(config));
  const all = { HOME: root, XDG_CONFIG_HOME: join(root, "xdg"), ...env };
  trustFile(all, root, file); // as `mcpx trust` does: a project's file sets phases only once trusted
  return openSession({ cwd: root, env: all, flags: [] });
}

/** compile-time only: the body is type-checked, never run */
function typeSpecification(s: Session): void {
  const timeout: number = s.get("exec.timeout");
  const token: string = s.get("daemon.token");
  const runtime: "auto" | "bun" | "deno" | "node" = s.get("script.runtime");
  const before: string[] = s.get("script.before");
  const hooks: Record<string, unknown>[] = s.get("hooks");
  const budget: number = s.get("hooks.retryBudget");
  void [timeout, token, runtime, before, hooks, budget];

  // @ts-expect-error a misspelt key does not compile
  s.get("exec.timeuot");
  // @ts-expect-error nor does a key that is not a setting at all
  s.get("mcpServers");
  // @ts-expect-error a duration is a number of milliseconds, not a string
  const asText: string = s.get("exec.timeout");
  // @ts-expect-error an enum is its values' union, so one value is too narrow
  const onlyBun: "bun" = s.get("script.runtime");
  // @ts-expect-error the value type is derived; a type argument no longer picks it
  s.get<"logging.level">("logging.format");
  void [asText, onlyBun];
}
void typeSpecification;

/** what each kind's resolved value is at run time, matching the KindValue types */
const RUNTIME_TYPE: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === "string",
  enum: (v) => typeof v === "string",
  int: (v) => Number.isInteger(v),
  duration: (v) => typeof v === "number",
  bool: (v) => typeof v === "boolean",
  list: (v) => Array.isArray(v) && v.every((i) => typeof i === "string"),
  source: (v) => Array.isArray(v) && v.every((i) => typeof i === "string"),
  json: (v) => Array.isArray(v) && v.every((i) => typeof i === "object" && i !== null && !Array.isArray(i)),
};

describe("session.get", () => {
  test("every setting's resolved value has the type its kind declares", () => {
    const s = session({ hooks: [{ on: "script", phase: "suffix", run: ["true"] }], script: { before: ["log('x')"] } });
    for (const decl of SETTINGS) {
      const value = s.get(decl.path as SettingPath);
      expect({ path: decl.path, ok: RUNTIME_TYPE[decl.kind]!(value) }).toEqual({ path: decl.path, ok: true });
    }
  });

  test("durations are milliseconds and ints are numbers, from defaults, files and variables alike", () => {
    const s = session({ exec: { timeout: "2s" } }, { MCPX_HOOKS_RETRY_BUDGET: "5" });
    expect(s.get("exec.timeout")).toBe(2000);
    expect(s.get("mcp.callTimeout")).toBe(60_000);
    expect(s.get("hooks.retryBudget")).toBe(5);
    expect(s.get("daemon.maxBody")).toBe(4_194_304);
  });

  test("an enum reads as one of its declared values", () => {
    const s = session({ script: { runtime: "node" } });
    const runtime: SettingValue<"script.runtime"> = s.get("script.runtime");
    expect(runtime).toBe("node");
    expect(s.get("logging.level")).toBe("info");
  });

  test("phases() reads the five script phases through the same typed getter", () => {
    const s = session({ script: { suffix: ["log('done')"] } });
    expect(s.phases()).toEqual({ before: [], prefix: [], onSuccess: [], onError: [], suffix: ["log('done')"] });
  });
});
