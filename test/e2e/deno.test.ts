// The same phase-order contract as phases.test.ts, with `--runtime deno`: the template and the
// in-script runtime are runtime-neutral, so every case must hold unchanged on Deno 2 (deno comes from
// node_modules/.bin, which is on the harness PATH, and which mcpx also searches by itself).

import { describe, expect, test } from "bun:test";
import { fakeServer, sandbox } from "./harness.ts";
import { phaseOrderTests } from "./phase-cases.ts";
import { expectExit, leftoverProcesses, mcpx, writeConfig } from "./support.ts";

phaseOrderTests("deno");

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

describe.concurrent("--runtime deno", () => {
  // a flag that is accepted and dropped would pass every phase test on Bun
  test("the script really runs on Deno", async () => {
    const r = await mcpx(sb, ["exec", "--runtime", "deno", "console.log(typeof Deno, typeof Bun)"]);
    expect(r.stdout).toBe("object undefined\n");
    expectExit(r, 0);
  });

  test("a script on Deno calls a fixture server tool through the generated client", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--runtime",
      "deno",
      'console.log(await fake.echo({ message: "from deno" })); console.log(JSON.stringify(await fake.add({ a: 2, b: 5 })))',
    ]);
    expect(r.stdout).toBe('from deno\n{"sum":7}\n');
    expectExit(r, 0);
  });

  // `npm i -D deno` puts deno in node_modules/.bin, not on PATH: the runtime is found there too
  test("deno is found in the node_modules/.bin above the mcpx binary when PATH has none", async () => {
    const r = await mcpx(sb, ["exec", "--runtime", "deno", "console.log(typeof Deno)"], { env: { PATH: "/usr/bin:/bin" } });
    expect(r.stdout).toBe("object\n");
    expectExit(r, 0);
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
