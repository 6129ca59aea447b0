// A script or a phase that does not parse is one clear line: the file (or snippet) with its line and
// column, or the phase with its line and where that line came from; never the generated launcher's
// code (`Expected "finally"`), never a stack frame that points nowhere (`at <parse> (:0)`).

import { describe, expect, test } from "bun:test";
import { sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

const sb = sandbox();
sb.write(".mcpx.json", "{}\n");
const BAD = sb.write("bad.ts", "const a = 1;\nconst x = ;\nexport default () => a;\n");
const CONFIG = sb.write(
  "configured/.mcpx.json",
  ["{", '  "script": {', '    "prefix": [', '      "1",', '      "if (x) {"', "    ]", "  }", "}", ""].join("\n"),
);
sb.write("configured/ok.ts", "export default () => 1\n");

describe.concurrent("syntax errors", () => {
  test("a script file that does not parse names the file, line and column, without a stack frame", async () => {
    const r = await mcpx(sb, ["run", "bad.ts"]);
    expectExit(r, 1);
    expect(r.stderr).toContain(`${BAD}:2:11`);
    expect(r.stderr).toContain("Unexpected ;");
    expect(r.stderr).not.toContain("<parse>");
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test("a flag's phase line that does not parse names the phase, the line and the flag, not the launcher's template", async () => {
    const r = await mcpx(sb, ["exec", "--prefix", "1", "--prefix", "const = 2", "1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain("script.prefix line 2, from --prefix");
    expect(r.stderr).toContain("does not parse as TypeScript");
  });

  test("a block a phase leaves open is named by the phase's last line and its origin, not by the template's `finally`", async () => {
    const r = await mcpx(sb, ["run", "ok.ts"], { cwd: `${sb.dir}/configured` });
    expectExit(r, 2);
    expect(r.stderr).toContain(`script.prefix line 2, from ${CONFIG}:5`);
    expect(r.stderr).not.toContain("finally");
    expect(r.stderr).not.toContain("catch");
  });
});
