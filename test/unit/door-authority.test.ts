// The door table (lib/trust/door-authority.ts): every field of a run has a row, and what each caller
// may set in it. The e2e half (agent-door-hostile.test.ts) drives the same fields through the doors.

import { describe, expect, test } from "bun:test";
import { ExecOptionsSchema } from "../../lib/exec/options-schema.ts";
import { EXEC_FIELDS, refusedField } from "../../lib/trust/door-authority.ts";

describe("the door table", () => {
  test("every ExecOptions key has a row, and every row is an ExecOptions key or mcpx_exec's own resume", () => {
    // a new field without a row would be taken from every door with nobody having decided who may set it
    const keys = [...Object.keys(ExecOptionsSchema.pipe[0].entries), "resume"].sort();
    expect(Object.keys(EXEC_FIELDS).sort()).toEqual(keys);
  });

  test("the user may set every field, whatever its value", () => {
    expect(refusedField("user", { hooks: [{ run: ["sh"] }, { module: "m.ts" }, { prompt: "p" }], env: { LD_PRELOAD: "/x.so" }, file: "f.ts" })).toBeUndefined();
  });

  for (const action of ["run", "module", "prompt"]) {
    test(`an agent's ${action} hook is refused, naming its index and action`, () => {
      const why = refusedField("agent", { hooks: [{ plugin: "s.t" }, { on: "script", [action]: action === "run" ? ["true"] : "x" }] });
      expect(why).toStartWith(`hooks[1].${action}: an agent's run may not declare a ${action} hook`);
    });
  }

  test("an agent's plugin hook is its to declare: the call passes the gate", () => {
    expect(refusedField("agent", { hooks: [{ on: "script", phase: "before", plugin: "fake.echo" }] })).toBeUndefined();
  });

  for (const name of [
    "LD_PRELOAD",
    "LD_AUDIT",
    "DENO_DIR",
    "DENO_V8_FLAGS",
    "BUN_OPTIONS",
    "NODE_OPTIONS",
    "npm_config_registry",
    "MALLOC_ARENA_MAX",
    "GLIBC_TUNABLES",
    "MCPX_RUN",
  ]) {
    test(`an agent's ${name} in env is refused, naming it`, () => {
      expect(refusedField("agent", { env: { OK: "1", [name]: "x" } })).toContain(JSON.stringify(name));
    });
  }

  test("an agent's ordinary variables are its to set, and a name that only contains a refused prefix is too", () => {
    expect(refusedField("agent", { env: { GREETING: "hi", MY_LD_PATH: "x", TZ: "UTC" } })).toBeUndefined();
  });

  test("an agent may not name a file of the user's", () => {
    expect(refusedField("agent", { file: "/etc/passwd" })).toStartWith("file: ");
  });

  test("an absent or undefined field is nobody's refusal, and an unknown key is left to the schema", () => {
    expect(refusedField("agent", { env: undefined, bogus: 1 })).toBeUndefined();
  });
});
