// fillTemplate and checkPhases: spliced source must not be able to break the launcher by accident
// (design §2), and a phase that does not parse is named before anything runs.

import { describe, expect, test } from "bun:test";
import { HOLES, fillTemplate, phaseBlock, type Hole } from "../../launcher/template.ts";
import { checkPhases } from "../../lib/exec/phase-check.ts";
import { SCRIPT_PHASES, type ScriptPhase } from "../../lib/settings/registry.ts";

const transpiler = new Bun.Transpiler({ loader: "ts" });

const PLAIN: Record<Hole, string> = {
  runtime: JSON.stringify("file:///cache/runtime.ts"),
  before: "",
  prefix: "",
  import: JSON.stringify("file:///cache/script.ts"),
  onSuccess: "",
  onError: "",
  suffix: "",
};

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** source that would break a naive template: hole names, comment ends, backticks, ${, $-patterns of String.replace */
function hostile(phase: ScriptPhase): string {
  return [
    `const marker_${phase} = "@suffix @before @import @${phase} */ /* $& $1 $' $\`";`,
    `const tpl_${phase} = \`\${marker_${phase}} \\\` \${"}"} */\`;`,
    `console.log("\${not a hole}", '*/', marker_${phase}, tpl_${phase}) // trailing comment with @onError and */`,
    `/* a closed comment mentioning @suffix */ void 0;`,
  ].join("\n");
}

describe("fillTemplate", () => {
  test("every hole is filled and no hole name is left", () => {
    const out = fillTemplate({ ...PLAIN, before: "b()", prefix: "p()", onSuccess: "s()", onError: "e()", suffix: "x()" });
    for (const hole of HOLES) expect(out).not.toMatch(new RegExp(`@${hole}\\b`));
    expect(() => transpiler.transformSync(out)).not.toThrow();
  });

  test("the phases stand in design order around the two global installs and the import", () => {
    const out = fillTemplate({ ...PLAIN, before: "B_()", prefix: "P_()", onSuccess: "S_()", onError: "E_()", suffix: "X_()" });
    const at = (s: string) => out.indexOf(s);
    const order = ["installBaseGlobals()", "B_()", "installGlobals()", "P_()", "import(", "S_()", "E_()", "X_()", "finish("].map(at);
    expect(order.every((n) => n >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  for (const phase of SCRIPT_PHASES) {
    test(`a ${phase} phase holding "@suffix", "*/", backticks, "\${" and $-patterns is inserted verbatim once and still transpiles`, () => {
      const text = hostile(phase);
      const out = fillTemplate({ ...PLAIN, [phase]: text });
      expect(count(out, text)).toBe(1);
      expect(() => transpiler.transformSync(out)).not.toThrow();
    });
  }

  test("all five hostile phases together are each inserted once and the launcher transpiles", () => {
    const values = { ...PLAIN };
    for (const phase of SCRIPT_PHASES) values[phase] = hostile(phase);
    const out = fillTemplate(values);
    for (const phase of SCRIPT_PHASES) expect(count(out, values[phase])).toBe(1);
    const js = transpiler.transformSync(out);
    // the template's own code after each phase survived (a swallowed line would drop these)
    for (const s of ["installGlobals", "callEntry", "finish", "import("]) expect(js).toContain(s);
  });

  test("a phase text that is exactly a hole name is not filled again", () => {
    const out = fillTemplate({ ...PLAIN, before: "@suffix", suffix: "SUFFIX_BODY()" });
    expect(count(out, "SUFFIX_BODY()")).toBe(1);
    expect(count(out, "@suffix")).toBe(1);
  });

  test("a trailing // comment in a phase cannot comment out template code", () => {
    const out = fillTemplate({ ...PLAIN, prefix: "p() // the rest of this line is mine" });
    expect(transpiler.transformSync(out)).toContain("import(");
  });

  test("the same const in two phases does not collide, nor with the template's own names", () => {
    const out = fillTemplate({ ...PLAIN, before: "const x = 1; const __mcpx_mod = 0;", prefix: "const x = 2;", suffix: "const x = 3; const result = 4;" });
    expect(() => transpiler.transformSync(out)).not.toThrow();
  });
});

describe("phaseBlock", () => {
  test("an empty phase is no code at all", () => {
    expect(phaseBlock("before", [])).toBe("");
  });

  test("each line is named before it runs, and the lines share one scope", () => {
    const block = phaseBlock("onError", [
      { source: "const a = 1", origin: "--on-error" },
      { source: "use(a)", origin: "/p/.mcpx.json:3" },
    ]);
    expect(block.indexOf('"script.onError line 1, from --on-error"')).toBeLessThan(block.indexOf("const a = 1"));
    expect(block.indexOf('"script.onError line 2, from /p/.mcpx.json:3"')).toBeLessThan(block.indexOf("use(a)"));
    expect(block.indexOf("const a = 1")).toBeLessThan(block.indexOf('"script.onError line 2'));
    expect(() => transpiler.transformSync(`{\n${block}\n}`)).not.toThrow();
  });

  test("an origin holding quotes, a comment end, a backtick or a hole name cannot break out of its string", () => {
    const origin = '/p/"we ird"*/`@suffix\\.json:1';
    const out = fillTemplate({
      ...PLAIN,
      before: phaseBlock("before", [{ source: "b()", origin }]),
      suffix: phaseBlock("suffix", [{ source: "SUFFIX_BODY()", origin: "--suffix" }]),
    });
    expect(count(out, "SUFFIX_BODY()")).toBe(1);
    const js = transpiler.transformSync(out);
    // the template's code after the before phase survived: a string that broke out would swallow or break it
    for (const s of ["installGlobals", "SUFFIX_BODY()", "finish("]) expect(js).toContain(s);
  });
});

describe("checkPhases", () => {
  test("phases that parse give no message, including TypeScript types and top-level await", () => {
    expect(checkPhases({})).toBeUndefined();
    expect(
      checkPhases({
        before: ["const n: number = 1", "await Promise.resolve(n)"],
        suffix: ["log(`done ${1}`)"],
        onError: ["if (result.error) {", "  log.error(result.error)", "}"],
      }),
    ).toBeUndefined();
  });

  test("a phase that does not parse is named, with the parser's complaint", () => {
    const msg = checkPhases({ before: ["ok()"], onError: ["log(("] });
    expect(msg).toStartWith("script.onError line 1, from ExecOptions.script.onError[0], does not parse as TypeScript: ");
    expect(msg).toContain("is not closed in script.onError");
    expect(checkPhases({ prefix: ["1", "const = 2"] }, { prefix: ["--prefix", "--prefix"] })).toBe(
      'script.prefix line 2, from --prefix, does not parse as TypeScript: Expected identifier but found "=" at column 7',
    );
  });

  test("the first broken phase in run order is the one named", () => {
    expect(checkPhases({ suffix: ["}"], prefix: ["{"] })).toStartWith("script.prefix line 1");
  });

  test("a stray brace cannot close the block a phase sits in", () => {
    expect(checkPhases({ onSuccess: ["}"] })).toBe(
      "script.onSuccess line 1, from ExecOptions.script.onSuccess[0], does not parse as TypeScript: Unexpected } at column 1",
    );
  });

  test("a static import gets the hint to use await import()", () => {
    for (const line of ['import x from "y"', 'import { a } from "b"', 'import * as m from "m"']) {
      expect(checkPhases({ prefix: [line] })).toEndWith('(a phase cannot hold a static import: use `await import("…")`)');
    }
  });

  test("a bare side-effect import gets the static import hint too", () => {
    // today `import "./setup.ts"` fails with only "Unexpected ..." and no hint
    expect(checkPhases({ before: ['import "./setup.ts"'] })).toEndWith('(a phase cannot hold a static import: use `await import("…")`)');
  });

  test("a syntax error without an import gets no import hint", () => {
    expect(checkPhases({ before: ["log(("] })).not.toContain("static import");
  });

  test("await import() is fine", () => {
    expect(checkPhases({ before: ['const m = await import("node:path")'] })).toBeUndefined();
  });

  // checkPhases exists so that a phase that would break the launcher is refused by name first; so
  // whatever it accepts must also transpile where fillTemplate puts it
  const SAMPLES = ["log(1)", "await 0", "}{", "return", "arguments.length", "label: for (;;) break label", "const result = 1", "yield 1", "export const x = 1"];
  for (const sample of SAMPLES) {
    test(`checkPhases and the filled launcher agree on ${JSON.stringify(sample)}`, () => {
      for (const phase of SCRIPT_PHASES) {
        const accepted = checkPhases({ [phase]: [sample] }) === undefined;
        let transpiles = true;
        try {
          transpiler.transformSync(fillTemplate({ ...PLAIN, [phase]: phaseBlock(phase, [{ source: sample, origin: "--x" }]) }));
        } catch {
          transpiles = false;
        }
        expect({ phase, accepted }).toEqual({ phase, accepted: transpiles });
      }
    });
  }
});
