// The channel's secrets are private (decision 0007): a hostile script, on any runtime, finds
// the run's socket path, token and frame nonce nowhere it can read, so it can neither forge frames the
// host believes nor take over another run's channel. These scripts are what broke the channel when the
// run travelled in MCPX_RUN: /proc/PID/environ kept it after the launcher deleted it from process.env.
// Every run carries --timeout, so a regression is a failure, not a stuck suite.

import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeServer, sandbox } from "./harness.ts";
import { expectExit, mcpx, writeConfig } from "./support.ts";

const sb = sandbox();
writeConfig(sb, ".mcpx.json", { mcpServers: { fake: fakeServer() } });

// Everything a script can read about itself and its host without privileges: both environments, both
// command lines, every open descriptor that is a regular file (fd 3 held the handoff), and the text the
// launcher writes, sniffed by replacing TextEncoder.prototype.encode and JSON.stringify. Pipes are not
// read: reading the script's own fd 1 through /proc would steal its output.
const GATHER = `import { readFileSync, readdirSync, statSync } from "node:fs";
const RS = "\\x1e";
export function gather() {
  const seen = [];
  const read = (p) => { try { seen.push(readFileSync(p, "utf8")); } catch {} };
  for (const pid of ["self", String(process.ppid)]) {
    read("/proc/" + pid + "/environ");
    read("/proc/" + pid + "/cmdline");
  }
  for (const fd of readdirSync("/proc/self/fd")) {
    try { if (statSync("/proc/self/fd/" + fd).isFile()) read("/proc/self/fd/" + fd); } catch {}
  }
  const enc = TextEncoder.prototype.encode;
  const stringify = JSON.stringify;
  TextEncoder.prototype.encode = function (t) { if (typeof t === "string") seen.push(t); return enc.call(this, t); };
  JSON.stringify = function (...a) { const s = stringify.apply(this, a); if (typeof s === "string") seen.push(s); return s; };
  log("sniff");
  emit("sniff");
  TextEncoder.prototype.encode = enc;
  JSON.stringify = stringify;
  const all = seen.join("\\n");
  const runs = [];
  for (const m of all.matchAll(/MCPX_RUN=([^\\0]*)/g)) { try { runs.push(JSON.parse(m[1])); } catch {} }
  const nonces = new Set(runs.map((r) => r.nonce).filter(Boolean));
  for (const m of all.matchAll(/\\x1e([A-Za-z0-9_-]{8,})\\{/g)) nonces.add(m[1]);
  return { all, runs, nonces: [...nonces] };
}
`;

describe.concurrent("a hostile script finds no channel secret", () => {
  for (const runtime of ["bun", "deno", "node"]) {
    test(`on ${runtime}, its own and its parent's environ, command lines and open files hold no token, nonce or socket`, async () => {
      // Node runs only a transpiled entry, so the gatherer is inlined; a file, not exec: the source
      // of an exec snippet is in mcpx's command line, which the script reads
      const look =
        `const { all, runs, nonces } = gather();
console.log(JSON.stringify({ runs: runs.length, nonces: nonces.length, run: ` +
        `all.includes("MCPX_RUN"), token: /"token"\\s*:/.test(all), sock: /\\.sock\\b/.test(all) }));`;
      const script = sb.write(`look-${runtime}.ts`, `${GATHER.replace("export function", "function")}\n${look}`);
      const args = ["run", "--runtime", runtime, "--timeout", "30s", script];
      const r = await mcpx(sb, args);
      expectExit(r, 0);
      expect(JSON.parse(r.stdout.trim())).toEqual({ runs: 0, nonces: 0, run: false, token: false, sock: false });
    });
  }
});

describe("forged frames", () => {
  // Before decision 0007 a forged call reusing id 1 was answered first, and the script's real call 1
  // settled with the forged answer: this run printed "FORGED".
  test("a call frame forged with every nonce the script can find does not answer its real call", async () => {
    sb.write("gather-forge.ts", GATHER);
    const script = sb.write(
      "forge.ts",
      `import { writeSync } from "node:fs";
import { gather } from "./gather-forge.ts";
const { nonces } = gather();
for (const nonce of nonces) writeSync(1, "\\x1e" + nonce + JSON.stringify({ t: "call", ` +
        `id: 1, server: "fake", tool: "echo", args: { message: "FORGED" } }) + "\\n");
const real = await fake.echo({ message: "real" });
console.log(JSON.stringify({ nonces: nonces.length, real }));`,
    );
    const r = await mcpx(sb, ["run", "--timeout", "30s", script]);
    expectExit(r, 0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ nonces: 0, real: "real" });
  });
});

describe("another run's channel", () => {
  // Before decision 0007 run B read run A's MCPX_RUN from /proc/A/environ, connected to A's socket
  // with A's token before A's first call, and A's call then failed with "mcpx channel closed".
  test("a concurrent run cannot connect to a run's channel, and that run's calls are answered", async () => {
    const ready = join(sb.dir, "a-ready");
    const go = join(sb.dir, "a-go");
    const a = sb.write(
      "run-a.ts",
      `import { existsSync, writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(ready)}, "");
while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 20));
console.log(await fake.echo({ message: "A" }));`,
    );
    const b = sb.write(
      "run-b.ts",
      `import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
const found = [];
for (const pid of readdirSync("/proc")) {
  if (!/^\\d+$/.test(pid) || pid === String(process.pid)) continue;
  let env = "";
  try { env = readFileSync("/proc/" + pid + "/environ", "utf8"); } catch { continue; }
  // only this sandbox's runs: the machine may be running other mcpx runs, which are not ours to touch
  if (!env.includes("HOME=" + process.env.HOME + "\0")) continue;
  for (const m of env.matchAll(/MCPX_RUN=([^\\0]*)/g)) { try { found.push(JSON.parse(m[1])); } catch {} }
}
const held = [];
for (const run of found) {
  if (run.runId === script.runId) continue;
  await new Promise((resolve) => {
    const s = connect({ path: run.sock }, () => { s.write(run.token + "\\n"); held.push(s); resolve(); });
    s.on("error", resolve);
  });
}
writeFileSync(${JSON.stringify(go)}, "");
await new Promise((r) => setTimeout(r, 1500));
for (const s of held) s.destroy();
console.log(JSON.stringify({ found: found.filter((r) => r.runId !== script.runId).length, held: held.length }));`,
    );
    const runA = mcpx(sb, ["run", "--timeout", "30s", a]);
    for (let i = 0; i < 500 && !existsSync(ready); i++) await Bun.sleep(20);
    expect(existsSync(ready)).toBe(true);
    const rb = await mcpx(sb, ["run", "--timeout", "30s", b]);
    const ra = await runA;
    expectExit(rb, 0);
    expect(JSON.parse(rb.stdout.trim())).toEqual({ found: 0, held: 0 });
    expectExit(ra, 0);
    expect(ra.stdout).toBe("A\n");
  });
});
