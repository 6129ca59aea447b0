// parseCommandArgs: strict command-line parsing derived from the registry. Repeated flags keep argv
// order (the order of phase lines is the order they run in), an unknown flag is an error that names
// it and suggests the near miss, and everything after `--` is left for the script.

import { describe, expect, test } from "bun:test";
import { UsageError } from "../../lib/errors/usage-error.ts";
import { parseCommandArgs, type OwnFlag } from "../../lib/settings/flags.ts";

const OWN: Record<string, OwnFlag> = {
  json: { type: "boolean", description: "envelope" },
  env: { type: "string", multiple: true, description: "KEY=VALUE" },
  export: { type: "string", description: "name" },
};

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error("expected a UsageError, nothing was thrown");
}

describe("repeatable flags", () => {
  test("keep argv order across settings and spellings", () => {
    const p = parseCommandArgs(
      "run",
      ["--before", "b1", "--prefix", "p1", "--script-suffix", "s1", "--before", "b2", "--on-error", "e1", "--before", "b3"],
      OWN,
    );
    expect(p.settings.map((f) => `${f.spelling}=${f.value}`)).toEqual([
      "--before=b1",
      "--prefix=p1",
      "--script-suffix=s1",
      "--before=b2",
      "--on-error=e1",
      "--before=b3",
    ]);
    expect(p.settings.map((f) => f.path)).toEqual(["script.before", "script.prefix", "script.suffix", "script.before", "script.onError", "script.before"]);
  });

  test("--flag=value and --flag value mean the same", () => {
    const p = parseCommandArgs("run", ["--before=a", "--before", "b"], OWN);
    expect(p.settings.map((f) => f.value)).toEqual(["a", "b"]);
  });

  test("the splice mark - is a value, not a flag", () => {
    expect(parseCommandArgs("exec", ["--suffix", "-"], OWN).settings).toEqual([{ path: "script.suffix", spelling: "--suffix", value: "-" }]);
  });

  test("a value that starts with a dash can be given with =", () => {
    expect(parseCommandArgs("run", ["--before=-1", "f.ts"], OWN).settings[0]!.value).toBe("-1");
  });

  test("a value that is empty is kept (an empty line is still a line)", () => {
    expect(parseCommandArgs("run", ["--before", ""], OWN).settings[0]!.value).toBe("");
  });

  test("a scalar setting flag is collected too; resolving decides whether twice is too many", () => {
    expect(parseCommandArgs("run", ["--timeout", "1s", "--timeout", "2s"], OWN).settings.map((f) => f.value)).toEqual(["1s", "2s"]);
  });

  test("the command's own flags are returned apart from the settings", () => {
    const p = parseCommandArgs("run", ["--json", "--env", "A=1", "--before", "x", "--env", "B=2", "--export", "main", "--config", "c.json"], OWN);
    expect(p.own).toMatchObject({ json: true, env: ["A=1", "B=2"], export: "main", config: "c.json" });
    expect(p.settings).toHaveLength(1);
  });
});

describe("unknown and malformed flags", () => {
  test("an unknown flag names itself, the command, the near miss and how to pass it to the script", () => {
    const msg = usageError(() => parseCommandArgs("run", ["--bfore", "x"], OWN));
    expect(msg).toStartWith("unknown flag --bfore for mcpx run (did you mean --before?); accepted: --script-before, --before,");
    expect(msg).toContain("--json");
    expect(msg).toEndWith("To pass it to the script, put it after --");
  });

  test("an unknown flag with nothing near gets no suggestion", () => {
    const msg = usageError(() => parseCommandArgs("run", ["--zzzzzzzzzzzz"], OWN));
    expect(msg).toStartWith("unknown flag --zzzzzzzzzzzz for mcpx run; accepted:");
  });

  test("an unknown short flag is named with its single dash", () => {
    expect(usageError(() => parseCommandArgs("run", ["-q"], OWN))).toStartWith("unknown flag -q for mcpx run");
  });

  test("a setting flag of another command is unknown here", () => {
    expect(usageError(() => parseCommandArgs("ls", ["--before", "x"], {}))).toStartWith("unknown flag --before for mcpx ls");
  });

  test("a setting flag without a value says it needs one", () => {
    expect(usageError(() => parseCommandArgs("run", ["f.ts", "--before"], OWN))).toBe("--before needs a value");
    expect(usageError(() => parseCommandArgs("run", ["--export"], OWN))).toBe("--export needs a value");
  });
});

describe("the parser's own rules (mcpx parses argv itself: node:util costs its start-up ~5 ms)", () => {
  test("--flag=value and --flag value are the same; a repeated single flag keeps its last value", () => {
    expect(parseCommandArgs("run", ["--export=a", "f.ts"], OWN).own.export).toBe("a");
    expect(parseCommandArgs("run", ["--export", "a", "--export=b", "f.ts"], OWN).own.export).toBe("b");
  });

  test("a multiple flag collects every value in order; an unset one is undefined", () => {
    const p = parseCommandArgs("run", ["--env", "A=1", "f.ts", "--env=B=2"], OWN);
    expect(p.own.env).toEqual(["A=1", "B=2"]);
    expect(p.own.export).toBeUndefined();
    expect(p.own.json).toBeUndefined();
  });

  test("a switch takes no value, and says so", () => {
    expect(parseCommandArgs("run", ["--json", "f.ts"], OWN).own.json).toBe(true);
    expect(usageError(() => parseCommandArgs("run", ["--json=yes", "f.ts"], OWN))).toStartWith("--json takes no value");
  });

  test("-h is --help; - alone is a positional (stdin)", () => {
    expect(parseCommandArgs("exec", ["-h"], OWN).own.help).toBe(true);
    expect(parseCommandArgs("exec", ["-"], OWN).positionals).toEqual(["-"]);
  });

  test("a flag where a value should be is a missing value that says how to give one starting with -", () => {
    expect(usageError(() => parseCommandArgs("run", ["--export", "--json", "f.ts"], OWN))).toBe(
      "--export needs a value (to give one starting with -, write --export=--json)",
    );
    expect(parseCommandArgs("run", ["--export=-x", "f.ts"], OWN).own.export).toBe("-x");
  });
});

describe("positionals and --", () => {
  test("positionals may stand between flags and keep their order", () => {
    const p = parseCommandArgs("run", ["--timeout", "5s", "report.ts", "--before", "b", "world", "42"], OWN);
    expect(p.positionals).toEqual(["report.ts", "world", "42"]);
    expect(p.settings.map((f) => f.path)).toEqual(["exec.timeout", "script.before"]);
  });

  test("everything after -- is rest, untouched, even when it looks like a flag", () => {
    const p = parseCommandArgs("run", ["report.ts", "a", "--", "--before", "x", "--unknown", "--"], OWN);
    expect(p.positionals).toEqual(["report.ts", "a"]);
    expect(p.rest).toEqual(["--before", "x", "--unknown", "--"]);
    expect(p.settings).toEqual([]);
  });

  test("a -- at the very start leaves only rest", () => {
    const p = parseCommandArgs("exec", ["--", "x"], OWN);
    expect(p).toMatchObject({ positionals: [], rest: ["x"], settings: [] });
  });

  test("without -- rest is empty", () => {
    expect(parseCommandArgs("run", ["f.ts"], OWN).rest).toEqual([]);
  });
});
