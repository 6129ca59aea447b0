// The MCP conformance suite's client scenarios against mcpx: for each one the suite starts its servers
// and runs test/conformance/client.ts (the mcpx commands a person would type), then judges what its
// servers saw, with the `client:` list of test/conformance/expected-failures.yml as the baseline.
// Exits non-zero on an unexpected failure and on a stale baseline entry, as the suite judges.
//
//   bun test/conformance/client-run.ts [SCENARIO…]      default: every client scenario but the extensions
//
// Scenarios run one suite process each, a few at a time; sse-retry runs alone at the end, because it
// measures how long the client waits before reconnecting (±200 ms) and a busy machine makes it late.
// The scenarios are those of every era the suite has (2025 and, from 0.2.0, 2026-07-28). Extension
// scenarios (client credentials, cross-app access, DPoP, workload identity: tokens with no person,
// no browser; skills) are no part of either revision and are not run, nor are the suite's
// authorization-server scenarios, listed after the client ones (mcpx is not an authorization
// server). The suite is found as in run.ts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCli } from "./suite-cli.ts";

const BASELINE = join(import.meta.dir, "expected-failures.yml");
const CLIENT = join(import.meta.dir, "client.ts");
/** scenarios run at once; each starts an authorization server, a resource server and several mcpx processes */
const PARALLEL = 3;
/** timing-sensitive scenarios, run alone once the others are done */
const ALONE = new Set(["sse-retry"]);

/** the client scenarios `conformance list` names, without the extension ones */
async function clientScenarios(cli: string): Promise<string[]> {
  const proc = Bun.spawn([process.execPath, cli, "list"], { stdout: "pipe", stderr: "inherit" });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  // the section ends where the next begins (authorization server scenarios: mcpx is not one)
  const section = text.slice(text.indexOf("Client scenarios")).split(/\n\s*\n/)[0] ?? "";
  return [...section.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].filter((m) => m[2] !== "extension").map((m) => m[1]!);
}

async function runOne(cli: string, scenario: string, cwd: string): Promise<{ scenario: string; code: number; output: string }> {
  const command = `${process.execPath} ${CLIENT}`;
  const proc = Bun.spawn([process.execPath, cli, "client", "--command", command, "--scenario", scenario, "--expected-failures", BASELINE, "-o", "results"], {
    cwd,
    env: { ...process.env, FORCE_COLOR: "0" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { scenario, code, output: out + err };
}

async function main(): Promise<number> {
  const cli = findCli();
  if (!cli) {
    process.stderr.write(`conformance: @modelcontextprotocol/conformance is not installed (see run.ts; or set MCPX_CONFORMANCE_CLI)\n`);
    return 2;
  }
  const wanted = process.argv.slice(2);
  const scenarios = wanted.length ? wanted : await clientScenarios(cli);
  const cwd = mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "mcpx-conformance-client-"));
  try {
    const queue = scenarios.filter((s) => !ALONE.has(s));
    const results: Awaited<ReturnType<typeof runOne>>[] = [];
    const worker = async () => {
      for (let s = queue.shift(); s !== undefined; s = queue.shift()) results.push(await runOne(cli, s, cwd));
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    for (const s of scenarios.filter((x) => ALONE.has(x))) results.push(await runOne(cli, s, cwd));
    let bad = 0;
    for (const r of results.sort((a, b) => a.scenario.localeCompare(b.scenario))) {
      const expected = /Expected failures \(in baseline\)/.test(r.output);
      const verdict =
        r.code !== 0 ? (/Stale baseline/.test(r.output) ? "STALE (passes: remove it from the baseline)" : "FAIL") : expected ? "expected failure" : "pass";
      process.stdout.write(`${r.code === 0 ? "ok  " : "BAD "} ${r.scenario}: ${verdict}\n`);
      if (r.code !== 0) {
        bad++;
        process.stdout.write(r.output.slice(-6000).replace(/^/gm, "    ") + "\n");
      }
    }
    process.stderr.write(
      bad === 0
        ? `conformance client: every failure is expected (${results.length} scenarios; test/conformance/expected-failures.yml)\n`
        : `conformance client: ${bad} of ${results.length} scenarios failed unexpectedly or are stale in the baseline\n`,
    );
    return bad === 0 ? 0 : 1;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

process.exit(await main());
