// The MCP conformance suite against the daemon's /mcp (dist/mcpx daemon on loopback TCP with a
// token; http-server.ts is a proxy that adds the token the suite cannot send), once per protocol
// era: its 2025 scenarios with test/conformance/expected-failures.yml as the baseline, then, when
// the installed suite has them, the scenarios 2026-07-28 requires (`--requirements 2026-07-28`)
// with test/conformance/expected-failures-2026.yml.
// Exits non-zero on an unexpected failure and on a stale baseline entry (a listed scenario that now
// passes), which is how the suite itself judges a baseline.
//
//   bun test/conformance/run.ts [conformance server options, e.g. --scenario tools-list --verbose]
//
// The suite is @modelcontextprotocol/conformance (0.2.0-alpha.12 measured, for both baselines; a
// suite with no 2026-07-28 scenarios, such as the 0.1.16 release, skips that era). It crashes on Node 20
// (globSync), so it runs under Bun. It is found in node_modules, or at MCPX_CONFORMANCE_CLI (the
// path of its dist/index.js). The server runs in a throwaway HOME/XDG tree whose config names the
// fake fixture server, so nothing from the machine leaks in.

import { basename, join, resolve } from "node:path";
import { sandbox } from "../e2e/harness.ts";
import { findCli } from "./suite-cli.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** one run of the suite: the era it checks, its own arguments, and its baseline */
interface EraRun {
  era: string;
  args: string[];
  baseline: string;
}
const ERA_RUNS: EraRun[] = [
  { era: "2025", args: [], baseline: join(import.meta.dir, "expected-failures.yml") },
  { era: "2026-07-28", args: ["--requirements", "2026-07-28"], baseline: join(import.meta.dir, "expected-failures-2026.yml") },
];
const SERVER = join(import.meta.dir, "http-server.ts");
const MCPX = join(ROOT, "dist/mcpx");
const FAKE = join(ROOT, "fixtures/servers/fake-server.ts");
/** the version this baseline was measured with; another one may add or rename scenarios */
export const CONFORMANCE_VERSION = "0.2.0-alpha.12";
/** how long the HTTP server may take to say `listening` */
const START_TIMEOUT_MS = 15_000;

async function main(): Promise<number> {
  const cli = findCli();
  if (!cli) {
    process.stderr.write(
      `conformance: @modelcontextprotocol/conformance is not installed: npm install --no-save ` +
        `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION} (or set MCPX_CONFORMANCE_CLI to ` +
        `its dist/index.js)\n`,
    );
    return 2;
  }
  // the e2e tests' isolated HOME/XDG tree (removed when this process exits)
  const { dir, env, write } = sandbox();
  write(".mcpx.json", JSON.stringify({ mcpServers: { fake: { command: process.execPath, args: [FAKE] } } }, null, 2));

  // the real daemon's /mcp, on loopback TCP with a token, reached through the token-adding proxy
  const token = crypto.randomUUID();
  // port 0: the kernel picks one nobody holds, and the daemon names it (a probed free port could be
  // taken by a test running beside this one before the daemon binds it)
  const daemon = Bun.spawn([MCPX, "daemon", "--daemon-address", "http://127.0.0.1:0"], {
    cwd: dir,
    env: { ...env, MCPX_DAEMON_TOKEN: token },
    stdin: "ignore",
    stdout: "inherit",
    stderr: "pipe",
  });
  let server: Bun.Subprocess<"pipe", "inherit", "pipe"> | undefined;
  try {
    const daemonUrl = await saysListening(daemon);
    server = Bun.spawn([process.execPath, SERVER, daemonUrl, token], { cwd: dir, env, stdin: "pipe", stdout: "inherit", stderr: "pipe" });
    const port = await listeningPort(server);
    const url = `http://127.0.0.1:${port}/mcp`;
    process.stderr.write(`conformance: ${cli} against ${url}\n`);
    const eras = await erasOffered(cli);
    let worst = 0;
    for (const run of ERA_RUNS) {
      if (!eras.includes(run.era)) {
        process.stderr.write(`conformance: this suite has no ${run.era} server scenarios: that era is not checked (${CONFORMANCE_VERSION} has them)\n`);
        continue;
      }
      const suite = Bun.spawn([process.execPath, cli, "server", "--url", url, ...run.args, "--expected-failures", run.baseline, ...process.argv.slice(2)], {
        cwd: dir, // the suite writes results/ into its working directory
        env: { ...env, PATH: process.env.PATH ?? env.PATH! },
        stdin: "ignore",
        stdout: "inherit",
        stderr: "inherit",
      });
      const code = await suite.exited;
      const verdict =
        code === 0
          ? `every failure is expected (test/conformance/${basename(run.baseline)})`
          : `exit ${code}: an unexpected failure, or a baseline entry that now passes (test/conformance/${basename(run.baseline)})`;
      process.stderr.write(`conformance: the ${run.era} era: ${verdict}\n`);
      worst ||= code;
    }
    return worst;
  } finally {
    server?.stdin.end(); // its stdin closing ends it
    daemon.kill("SIGTERM");
    const killer = setTimeout(() => {
      server?.kill("SIGKILL");
      daemon.kill("SIGKILL");
    }, 5000);
    await Promise.all([server?.exited, daemon.exited]);
    clearTimeout(killer);
  }
}

/** the eras the suite has server scenarios for: "2025" always, "2026-07-28" when its list names that revision */
async function erasOffered(cli: string): Promise<string[]> {
  const list = Bun.spawn([process.execPath, cli, "list"], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
  const [text, code] = await Promise.all([new Response(list.stdout).text(), list.exited]);
  if (code !== 0) throw new Error(`conformance: ${cli} list exited ${code}`);
  const server = text.split(/client scenarios/i)[0] ?? "";
  return server.includes("2026-07-28") ? ["2025", "2026-07-28"] : ["2025"];
}

/** waits for the daemon's "listening on ADDRESS" line on stderr and returns ADDRESS, then keeps its stderr drained */
async function saysListening(proc: Bun.Subprocess<"ignore", "inherit", "pipe">): Promise<string> {
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let seen = "";
  const deadline = setTimeout(() => proc.kill("SIGKILL"), START_TIMEOUT_MS);
  try {
    let address: string | undefined;
    while (address === undefined) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the daemon ended before listening:\n${seen}`);
      seen += dec.decode(value, { stream: true });
      address = /mcpx daemon listening on (\S+)\n/.exec(seen)?.[1];
    }
    void (async () => {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        process.stderr.write(r.value);
      }
    })();
    return address;
  } finally {
    clearTimeout(deadline);
  }
}

/** reads the server's stderr until `listening PORT`; the rest of its stderr is passed through */
async function listeningPort(proc: Bun.Subprocess<"pipe", "inherit", "pipe">): Promise<number> {
  const reader = proc.stderr.getReader();
  const dec = new TextDecoder();
  let seen = "";
  const deadline = setTimeout(() => proc.kill("SIGKILL"), START_TIMEOUT_MS);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the conformance HTTP server ended before listening:\n${seen}`);
      seen += dec.decode(value, { stream: true });
      const m = /listening (\d+)/.exec(seen);
      if (m) {
        // keep draining (and showing) its stderr so it never blocks on a full pipe
        void (async () => {
          for (;;) {
            const r = await reader.read();
            if (r.done) return;
            process.stderr.write(r.value);
          }
        })();
        return Number(m[1]);
      }
    }
  } finally {
    clearTimeout(deadline);
  }
}

process.exit(await main());
