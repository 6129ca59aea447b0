// The same phase-order contract as phases.test.ts, in the embedded QuickJS sandbox (`--sandbox on`,
// whose default engine it is): the launcher is the same text on every engine, so every case must hold
// unchanged. And the frames: a run's stream on QuickJS is the one the embedded Bun gives, frame by frame.

import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, sandbox } from "./harness.ts";
import { phaseOrderTests } from "./phase-cases.ts";
import { expectExit, leftoverProcesses, mcpx, parseFrames, writeConfig } from "./support.ts";

phaseOrderTests("quickjs");

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

describe.concurrent("--sandbox on, on the embedded QuickJS", () => {
  // a flag that is accepted and dropped would pass every phase test on Bun
  test("the script really runs on QuickJS: no Bun, Deno or fetch, and a process of its own", async () => {
    const r = await mcpx(sb, ["exec", "--sandbox", "on", "console.log(typeof Bun, typeof Deno, typeof fetch, Object.keys(process).join())"]);
    expect(r.stdout).toBe("undefined undefined undefined env,argv,stdout,stderr,stdin\n");
    expectExit(r, 0);
  });

  test("QuickJS runs its own runtime bundle, without the Bun, Deno and Node system layers; Bun runs the full one", async () => {
    const own = sandbox();
    expectExit(await mcpx(own, ["exec", "--sandbox", "on", "return 1"]), 0);
    expectExit(await mcpx(own, ["exec", "--sandbox", "off", "return 1"]), 0);
    const launch = join(own.env.XDG_CACHE_HOME!, "mcpx", "launch");
    const runtimeDirs = readdirSync(launch).filter((d) => d.startsWith("rt-"));
    expect(runtimeDirs.length).toBe(1);
    const read = (file: string) => readFileSync(join(launch, runtimeDirs[0]!, file), "utf8");
    const [forQuickjs, forAll] = [read("runtime.quickjs.mjs"), read("runtime.bundle.mjs")];
    // the Bun layer opens libc through bun:ffi, the Node layer writes through node:fs, the Deno layer through Deno.stdout
    for (const layerCode of ['import("bun:ffi")', "Deno.stdout", "writeSync("]) {
      expect(forAll).toContain(layerCode);
      expect(forQuickjs).not.toContain(layerCode);
    }
    expect(forQuickjs).toContain("sys-bun.ts is not in the QuickJS sandbox's runtime");
    expect(forQuickjs.length).toBeLessThan(forAll.length * 0.85);
  });

  test("a script on QuickJS calls a fixture server tool through the generated client, and waits on a timer", async () => {
    const r = await mcpx(sb, [
      "exec",
      "--sandbox",
      "on",
      'console.log(await fake.echo({ message: "from quickjs" })); await new Promise((ok) => setTimeout(ok, 20)); ' +
        "console.log(JSON.stringify(await fake.add({ a: 2, b: 5 })))",
    ]);
    expect(r.stdout).toBe('from quickjs\n{"sum":7}\n');
    expectExit(r, 0);
  });

  test("a run streams the same frames, in the same order, on QuickJS as on the embedded Bun", async () => {
    const source =
      'log("a log"); emit({ n: 1 }); console.log("out"); console.error("err"); ' +
      'const r = await fake.echo({ message: "m" }); await call("fake", "add", { a: 1, b: 2 }); return r';
    const phases = ["--before", 'log("before")', "--on-success", 'log("ok " + result.value)', "--suffix", 'log("suffix")'];
    const shape = async (flags: string[]) => {
      const r = await mcpx(sb, ["exec", "--output", "stream", ...flags, ...phases, source]);
      expectExit(r, 0);
      // what each frame says, less what differs run to run (ids, hashes, times)
      return parseFrames(r.stdout).map((f) => {
        const { type, level, message, value, data, server, tool, ok } = f as Record<string, unknown>;
        return { type, level, message, value, data, server, tool, ok };
      });
    };
    const onBun = await shape([]);
    expect(onBun.map((f) => f.type)).toContain("call");
    expect(await shape(["--sandbox", "on"])).toEqual(onBun);
  });
});

test("no server process started by this file's runs is left behind", async () => {
  expect(await leftoverProcesses(sb.dir)).toEqual([]);
});
