// The one table of error codes (lib/errors/codes.ts): every code in it is produced somewhere in the
// code, every code the code produces is in it, the docs generated from it are fresh, and the errors
// commands throw carry a code from it and are checked with instanceof.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ConfigError } from "../../lib/config/errors.ts";
import { DaemonClientError } from "../../lib/daemon/client.ts";
import { DaemonError } from "../../lib/daemon/server.ts";
import { ERROR_CODE_NAMES, ERROR_CODES, errorNameOf, exitCodeOf, frameCodeOf, isErrorCode } from "../../lib/errors/codes.ts";
import { EXIT_CODES_BEGIN, EXIT_CODES_END, FRAME_CODES_BEGIN, withGeneratedExitCodes, withGeneratedFrameCodes } from "../../lib/errors/docs.ts";
import { callError, frameError } from "../../lib/errors/frame-error.ts";
import { McpxError } from "../../lib/errors/mcpx-error.ts";
import { RuntimeError } from "../../lib/runtime/kinds.ts";
import { HookConfigError } from "../../lib/hooks/schema.ts";
import { UpstreamError } from "../../lib/mcp/upstream-error.ts";
import { ArgumentError } from "../../lib/mcp/call-args.ts";
import { UnknownToolError } from "../../lib/mcp/tool-call.ts";
import { UsageError } from "../../lib/errors/usage-error.ts";
import { SettingsError } from "../../lib/settings/resolve.ts";
import { withGeneratedBlock } from "../../lib/util/generated-block.ts";
import { EXIT_CODES_DOC, FRAMES_DOC } from "../gen-docs.ts";

const ROOT = join(import.meta.dir, "..", "..");

/** the product's sources outside the table's own folder: where a code has to be produced */
function sources(): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith(".ts")) out.push({ path: relative(ROOT, p), text: readFileSync(p, "utf8") });
    }
  };
  for (const d of ["cmd", "lib", "launcher"]) walk(join(ROOT, d));
  return out.filter((f) => !f.path.startsWith("lib/errors/"));
}

describe("the error-code table", () => {
  const files = sources();

  test("every code in the table is produced somewhere outside the table (no dead rows)", () => {
    const dead = ERROR_CODE_NAMES.filter((c) => !files.some((f) => f.text.includes(`"${c}"`)));
    expect(dead).toEqual([]);
  });

  test("no error code is written as a bare literal: frames and exits take theirs from the table", () => {
    // a `code: "X"` or `code = "X"` outside lib/errors bypasses the table (its exit code would be guessed)
    const bare = files.flatMap((f) => [...f.text.matchAll(/\bcode\s*[:=]\s*"([A-Z][A-Z0-9_]*)"/g)].map((m) => `${f.path}: ${m[0]}`));
    expect(bare).toEqual([]);
  });

  test("every code compared against is in the table (errno names like ENOENT aside)", () => {
    const frameCodes = new Set<string | null>(ERROR_CODE_NAMES.map((c) => ERROR_CODES[c].frame));
    const compared = files.flatMap((f) => [...f.text.matchAll(/\bcode\s*===\s*"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"/g)].map((m) => m[1]!));
    expect(compared.filter((c) => !isErrorCode(c) && !frameCodes.has(c))).toEqual([]);
  });

  test("the exit codes of docs/exit-codes.md come from the table", () => {
    expect(exitCodeOf("USAGE")).toBe(2);
    expect(exitCodeOf("CONFIG")).toBe(2);
    expect(exitCodeOf("E_NO_DAEMON")).toBe(2);
    expect(exitCodeOf("REFUSED")).toBe(77);
    expect(exitCodeOf("RESULT_REFUSED")).toBe(1);
    expect(exitCodeOf("TIMEOUT")).toBe(124);
    expect(exitCodeOf("INTERRUPTED")).toBe(130);
    expect(exitCodeOf("TOOL_ERROR")).toBe(1);
  });

  test("EXIT passes the script's own code through", () => {
    expect(exitCodeOf("EXIT", 3)).toBe(3);
    expect(exitCodeOf("EXIT", 143)).toBe(143);
  });

  test("each code appears in frames as its frame code; a code that never reaches a frame says so", () => {
    expect(frameCodeOf("CALL_REFUSED")).toBe("REFUSED");
    expect(frameCodeOf("HOOK_CONFIG")).toBe("USAGE");
    expect(frameCodeOf("UPSTREAM_TIMEOUT")).toBe("UPSTREAM_TIMEOUT");
    expect(() => frameCodeOf("E_NO_DAEMON")).toThrow("never reaches a frame");
  });

  test("a frame code is the name of a row, so a frame consumer can look any of them up", () => {
    for (const c of ERROR_CODE_NAMES) {
      const frame = ERROR_CODES[c].frame;
      if (frame !== null) expect(isErrorCode(frame)).toBe(true);
    }
  });

  test("every row has a docs line that is one sentence-like line", () => {
    for (const c of ERROR_CODE_NAMES) {
      expect(ERROR_CODES[c].doc.length).toBeGreaterThan(10);
      expect(ERROR_CODES[c].doc).not.toContain("\n");
    }
  });
});

describe("the errors commands throw", () => {
  const cases: [McpxError, string, number][] = [
    [new UsageError("x"), "USAGE", 2],
    [new ConfigError({ file: "f.json", detail: "x" }), "CONFIG", 2],
    [new SettingsError("x"), "SETTINGS", 2],
    [new RuntimeError("x"), "RUNTIME", 2],
    [new HookConfigError({ problem: "p", origin: "o", fix: "f" }), "HOOK_CONFIG", 2],
    [new DaemonError("x"), "E_DAEMON", 2],
    [new DaemonClientError("x", "E_NO_DAEMON"), "E_NO_DAEMON", 2],
    [new DaemonClientError("x", "DAEMON_FAILED", 500), "DAEMON_FAILED", 1],
    [new UpstreamError("x", "s", "UPSTREAM_START"), "UPSTREAM_START", 1],
    [new UnknownToolError("s", "t"), "UNKNOWN_TOOL", 1],
  ];

  test.each(cases.map(([e, code, exit]) => [e.name, code, exit, e] as const))(
    "%s (%s) is a McpxError with the table's exit code %d",
    (_name, code, exit, error) => {
      expect(error).toBeInstanceOf(McpxError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code as never);
      expect(error.exitCode).toBe(exit);
    },
  );

  test("each keeps its own name, which the CLI no longer decides anything by", () => {
    expect(cases.map(([e]) => e.name)).toEqual([
      "UsageError",
      "ConfigError",
      "SettingsError",
      "RuntimeError",
      "HookConfigError",
      "DaemonError",
      "DaemonClientError",
      "DaemonClientError",
      "UpstreamError",
      "UnknownToolError",
    ]);
  });
});

describe("a frame's error and a thrown error of one kind", () => {
  test("no error frame is written as an object literal with a name: frames take theirs from the table", () => {
    // `name: "XError"` outside lib/errors is a second spelling of a row's name (frame-error.ts makes them)
    const files = sources().filter((f) => !f.path.startsWith("launcher/"));
    const literal = files.flatMap((f) => [...f.text.matchAll(/\bname:\s*"([A-Za-z]+Error)"/g)].map((m) => `${f.path}: ${m[0]}`));
    expect(literal).toEqual([]);
  });

  test("an error thrown with a code carries that code's name, the name its error frame carries", () => {
    for (const code of ERROR_CODE_NAMES) {
      const thrown = new McpxError("x", code);
      expect(thrown.name).toBe(errorNameOf(code));
      if (ERROR_CODES[code].frame !== null) expect(frameError(code, "x")).toEqual({ name: thrown.name, code: frameCodeOf(code), message: "x" });
    }
  });

  test("the subclasses thrown name themselves by their code's row", () => {
    const thrown = [new UsageError("x"), new ArgumentError("x"), new ConfigError({ file: "f.json", detail: "x" }), new SettingsError("x")];
    const more = [new RuntimeError("x"), new HookConfigError({ problem: "p", origin: "o", fix: "f" }), new DaemonError("x")];
    for (const e of [...thrown, ...more, new DaemonClientError("x", "E_NO_DAEMON"), new UnknownToolError("s", "t")]) expect(e.name).toBe(errorNameOf(e.code));
  });

  test("a failed call's answer is a ToolError whatever its code, with the code's frame code and its data", () => {
    expect(callError("UPSTREAM_TIMEOUT", "slow", { server: "s" })).toEqual({
      name: "ToolError",
      code: "UPSTREAM_TIMEOUT",
      message: "slow",
      data: { server: "s" },
    });
    expect(callError("CALL_REFUSED", "no")).toEqual({ name: "ToolError", code: "REFUSED", message: "no" });
  });

  test("a heap limit is its own row that reaches frames as EXIT, under the name the docs give it", () => {
    expect(frameError("HEAP_LIMIT", "x")).toEqual({ name: "HeapLimitError", code: "EXIT", message: "x" });
  });
});

describe("docs generated from the table", () => {
  test("docs/exit-codes.md is up to date with the table", () => {
    const doc = readFileSync(EXIT_CODES_DOC, "utf8");
    if (withGeneratedExitCodes(doc) !== doc)
      throw new Error("docs/exit-codes.md is stale: lib/errors/codes.ts changed. Run `bun run test/gen-docs.ts` and commit the result.");
  });

  test("docs/frames.md's error-code list is up to date with the table", () => {
    const doc = readFileSync(FRAMES_DOC, "utf8");
    if (withGeneratedFrameCodes(doc) !== doc)
      throw new Error("docs/frames.md is stale: lib/errors/codes.ts changed. Run `bun run test/gen-docs.ts` and commit the result.");
  });

  test("the exit-code table has one row per code and names each exit the design promises", () => {
    const doc = readFileSync(EXIT_CODES_DOC, "utf8");
    const part = doc.slice(doc.indexOf(EXIT_CODES_BEGIN), doc.indexOf(EXIT_CODES_END));
    for (const c of ERROR_CODE_NAMES) expect(part).toContain(`| \`${c}\` |`);
    for (const exit of ["| 1 |", "| 2 |", "| 77 |", "| 124 |", "| 130 |", "| N, 128+n |"]) expect(part).toContain(exit);
  });

  test("frames.md lists every frame code once per row that produces it", () => {
    const doc = readFileSync(FRAMES_DOC, "utf8");
    const part = doc.slice(doc.indexOf(FRAME_CODES_BEGIN));
    for (const c of ERROR_CODE_NAMES) if (ERROR_CODES[c].frame !== null) expect(part).toContain(`| \`${ERROR_CODES[c].frame}\` |`);
    expect(part).not.toContain("E_NO_DAEMON");
  });

  test("withGeneratedBlock refuses a document without its markers and keeps everything outside them", () => {
    expect(() => withGeneratedBlock("# x\n", "<b>", "<e>", "t\n")).toThrow("<b>");
    expect(() => withGeneratedBlock("<e>\n<b>\n", "<b>", "<e>", "t\n")).toThrow("in that order");
    const once = withGeneratedBlock("a\n<b>\nold\n<e>\nz\n", "<b>", "<e>", "new\n");
    expect(once).toBe("a\n<b>\nnew\n<e>\nz\n");
    expect(withGeneratedBlock(once, "<b>", "<e>", "new\n")).toBe(once);
  });
});
