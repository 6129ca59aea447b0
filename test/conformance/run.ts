// The MCP conformance suite against the daemon's /mcp (dist/mcpx daemon on loopback TCP with a
// token; http-server.ts is a proxy that adds the token the suite cannot send), with
// test/conformance/expected-failures.yml as the baseline.
// Exits non-zero on an unexpected failure and on a stale baseline entry (a listed scenario that now
// passes), which is how the suite itself judges a baseline.
//
//   bun test/conformance/run.ts [conformance server options, e.g. --scenario tools-list --verbose]
//
// The suite is @modelcontextprotocol/conformance (0.1.16 measured). It crashes on Node 20
// (globSync), so it runs under Bun. It is found in node_modules, or at MCPX_CONFORMANCE_CLI (the
// path of its dist/index.js). The server runs in a throwaway HOME/XDG tree whose config names the
// fake fixture server, so nothing from the machine leaks in.

import { join, resolve } from "node:path";
import { sandbox } from "../e2e/harness.ts";
import { findCli } from "./suite-cli.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BASELINE = join(import.meta.dir, "expected-failures.yml");
const SERVER = join(import.meta.dir, "http-server.ts");
const MCPX = join(ROOT, "dist/mcpx");
const FAKE = join(ROOT, "fixtures/servers/fake-server.ts");
/** the version this baseline was measured with; another one may add or rename scenarios */
export const CONFORMANCE_VERSION = "0.1.16";
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
    const suite = Bun.spawn([process.execPath, cli, "server", "--url", url, "--expected-failures", BASELINE, ...process.argv.slice(2)], {
      cwd: dir, // the suite writes results/ into its working directory
      env: { ...env, PATH: process.env.PATH ?? env.PATH! },
      stdin: "ignore",
      stdout: "inherit",
      stderr: "inherit",
    });
    const code = await suite.exited;
    const verdict =
      code === 0
        ? "every failure is expected (test/conformance/expected-failures.yml)"
        : `exit ${code}: an unexpected failure, or a baseline entry that now passes`;
    process.stderr.write(`conformance: ${verdict}\n`);
    return code;
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
