// A config error names the file and the line the key is written on, with the accepted values: an
// unknown top-level key (with the key it was probably meant to be), a setting's bad value.

import { describe, expect, test } from "bun:test";
import { sandbox } from "./harness.ts";
import { expectExit, mcpx } from "./support.ts";

describe.concurrent("config errors with a line", () => {
  test("an unknown top-level key names file:line and the key it was meant to be", async () => {
    const sb = sandbox();
    const file = sb.write(".mcpx.json", '{\n  "$schema": "x",\n  "mcpservers": {}\n}\n');
    const r = await mcpx(sb, ["ls"]);
    expectExit(r, 2);
    expect(r.stderr).toContain(`${file}:3:3: unknown key "mcpservers"`);
    expect(r.stderr).toContain("did you mean mcpServers?");
  });

  test("a setting's bad value names file:line and the accepted values", async () => {
    const sb = sandbox();
    const file = sb.write(".mcpx.json", '{\n  "logging": {\n    "level": "loud"\n  }\n}\n');
    const r = await mcpx(sb, ["exec", "1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain(`${file}:3:5 key logging.level: "loud" is not a valid logging.level: use one of debug, info, warn, error, silent`);
  });

  test("an unknown setting in a group names file:line", async () => {
    const sb = sandbox();
    const file = sb.write(".mcpx.json", '{\n  "exec": { "timout": "1s" }\n}\n');
    const r = await mcpx(sb, ["exec", "1"]);
    expectExit(r, 2);
    expect(r.stderr).toContain(`${file}:2:13: unknown setting "exec.timout"`);
    expect(r.stderr).toContain("did you mean exec.timeout?");
  });
});
