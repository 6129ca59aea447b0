// What main.ts reads of a command line before the command loads: the same parse the command makes
// (lib/settings/flags.ts), and the runtime guess made from it (lib/runtime/guess.ts).

import { describe, expect, test } from "bun:test";
import { AD_HOC_FLAGS, SCRIPT_FLAGS } from "../../cmd/own-flags.ts";
import { guessKind } from "../../lib/runtime/guess.ts";
import { preParseArgs, settingFlag } from "../../lib/settings/flags.ts";

const FLAGS = { ...SCRIPT_FLAGS, ...AD_HOC_FLAGS };

describe("the pre-parse", () => {
  test("is the command's own parse: a phase's - is a value, the snippet's - a positional", () => {
    const p = preParseArgs("exec", ["--before", "-", "--env", "A=1", "-"], FLAGS)!;
    expect(p.positionals).toEqual(["-"]);
    expect(p.own.env).toEqual(["A=1"]);
    expect(settingFlag(p, "script.before")).toBe("-");
  });

  test("reads a setting by its path, whichever of its spellings was given", () => {
    expect(settingFlag(preParseArgs("run", ["--script-runtime", "node", "f.ts"], FLAGS)!, "script.runtime")).toBe("node");
    expect(settingFlag(preParseArgs("run", ["--runtime=deno", "f.ts"], FLAGS)!, "script.runtime")).toBe("deno");
    expect(settingFlag(preParseArgs("run", ["f.ts"], FLAGS)!, "script.runtime")).toBeUndefined();
  });

  test("is undefined for a command line that does not parse, which the command then reports", () => {
    expect(preParseArgs("exec", ["--bogus", "1"], FLAGS)).toBeUndefined();
    expect(preParseArgs("run", ["f.ts", "--runtime"], FLAGS)).toBeUndefined();
  });
});

describe("the runtime guess", () => {
  const args = { env: [], stdinScript: false };

  test("is the kind --runtime names, Bun for auto and bun, and none for a sandboxed run", () => {
    expect(guessKind({ ...args, runtime: "deno" }).guess).toBe("deno");
    expect(guessKind({ ...args, runtime: "node" }).guess).toBe("node");
    expect(guessKind({ ...args, runtime: "auto" }).guess).toBe("bun");
    expect(guessKind({ ...args, runtime: "bun", sandbox: "off" }).guess).toBe("bun");
    expect(guessKind({ ...args, runtime: "deno", sandbox: "on" }).guess).toBe("none");
    expect(guessKind({ ...args, runtime: "nonsense" }).guess).toBe("none");
  });
});
