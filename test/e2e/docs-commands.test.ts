// Every command shown in README.md and docs/*.md, and every JSON config example, is run here through
// the compiled binary, in a sandbox that holds what the docs talk about: the servers they name
// (`everything` = the published server-everything, `fake` = fixtures/servers/fake-server.ts), a
// `report.ts`, the hook programs and the plugin server they mention. A documented command that fails
// fails this test; so does a block this test does not know how to run.
//
// How the docs are read (test/e2e/doc-blocks.ts, unit-tested in test/unit/doc-blocks.test.ts):
// - ```sh, ```bash, ```shell: every line is a command (a trailing `# comment` is dropped);
//   ```console: every `$ ` line. Each runs with `sh -c` in the sandbox, `mcpx` on PATH being
//   dist/mcpx, and must exit 0. `mcpx daemon` and `mcpx serve` run for the rest of their block: the
//   daemon until its later commands are done (it must then stop with exit 0 on SIGTERM), serve as the
//   MCP server of a client that lists its tools. `mcpx`, `curl` and `make` (the README's first block
//   only: it *is* the suite, so it is checked to be exactly `make` and `make test`, not run; and
//   `make release`, run in the repository, whose binaries are then checked: sums, headers, and the
//   one for this machine runs) are the programs this test can run; any other is a failure to fix here.
//   In the suite `make release` builds only this machine's target (RELEASE_TARGETS): the other five
//   come out of the same build.ts loop with only Bun's --target changed, so one proves the command
//   and the checks; `make test-release` (MCPX_TEST_RELEASE=all) builds and checks all six.
// - ```json, ```jsonc: a config example. A first line `// PATH` says where the file goes (default
//   `.mcpx.json`); files other than a config file (a plugin manifest) are written for the config
//   examples after them in the same doc. A config is loaded by `mcpx settings list` and `mcpx hooks
//   list`, its servers listed by `mcpx ls`, and a config with `script` lines runs `mcpx exec`.
// - Unlabeled blocks are prose (frame lists, messages); one that holds a command or JSON fails here.
// - Markers, an HTML comment on the line right above the fence (invisible when rendered):
//     <!-- doc-test: network -->        its URLs stand for a remote MCP server: each is pointed at a
//                                       local one (a TCP `mcpx daemon`'s /mcp) and every `${VAR}` in the
//                                       block is that server's token
//     <!-- doc-test: output -->         a JSON answer or shape, not a config: not run
//     <!-- doc-test: oauth -->          the block is about an OAuth-protected server: a config's URLs are
//                                       pointed at the local OAuth fixture (fixtures/servers/oauth-server.ts)
//                                       and each of its url servers is logged in (`mcpx auth NAME`) before
//                                       `mcpx ls`; a shell block's sandbox has that fixture configured as
//                                       `notes`. BROWSER is the fake browser (fixtures/servers/fake-browser.ts),
//                                       which follows the printed URL back to mcpx's loopback callback.
//                                       The fixture also knows the client docs/auth.md shows as
//                                       registered beforehand, its secret in NOTES_CLIENT_SECRET.
// - ```dockerfile: a container recipe. There is no Docker engine here, so each line must be a FROM or
//   a COPY of a binary `make release` builds; test/e2e/container.test.ts runs that binary in an
//   empty root holding nothing else.
//     <!-- doc-test: client-config -->  an MCP client's (agent host's) config: each server in it is
//                                       started and its tools listed, as the host would
// - ```yaml: a deployment manifest, not run here: test/unit/deploy-manifests.test.ts checks that it is
//   the text of a file under docs/deploy/ and that those files hold what docs/deploy.md promises.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chmodSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { BUN, EVERYTHING, FAKE_SERVER, MCPX, ROOT, sandbox, type Sandbox } from "./harness.ts";
import {
  blockProblem,
  DOCKER_LANGS,
  examplePath,
  fencedBlocks,
  JSON_LANGS,
  program,
  SHELL_LANGS,
  shellCommands,
  type DocBlock,
  type DocCommand,
} from "./doc-blocks.ts";
import { startDaemon, stopDaemons, type Daemon } from "./daemon-support.ts";
import { BROWSER, startOAuthServer, type OAuthFixture } from "./oauth-support.ts";

const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const BLOCKS = DOCS.flatMap((f) => fencedBlocks(f, readFileSync(join(ROOT, f), "utf8")));
const README_FIRST = BLOCKS.find((b) => b.file === "README.md")!;

/** how long one documented command may take; it is a bound on a hang, not a timing assertion */
const COMMAND_TIMEOUT_MS = 60_000;
const TOKEN = "doc-test-token-0123456789";

/** the world the docs talk about, in a fresh sandbox */
function docSandbox(): Sandbox & { path: string } {
  const sb = sandbox();
  const bin = join(sb.dir, "bin");
  mkdirSync(bin);
  symlinkSync(MCPX, join(bin, "mcpx"));
  // npx finds @modelcontextprotocol/server-everything here, as in a project that installed it
  mkdirSync(join(sb.dir, "node_modules/.bin"), { recursive: true });
  symlinkSync(join(ROOT, "node_modules/@modelcontextprotocol"), join(sb.dir, "node_modules/@modelcontextprotocol"));
  symlinkSync(EVERYTHING, join(sb.dir, "node_modules/.bin/mcp-server-everything"));
  sb.write(".mcpx.json", JSON.stringify({ mcpServers: { everything: { command: EVERYTHING }, fake: { command: BUN, args: [FAKE_SERVER] } } }, null, 2));
  sb.write("report.ts", 'export default async function report() {\n  log("reporting");\n  return await everything.echo({ message: "report" });\n}\n');
  // the hook programs the docs name: each answers "no opinion"
  for (const exe of ["guards/confirm", "guards/confirm-delete", "pre-tool-use.sh", "run-tests"])
    chmodSync(sb.write(exe, "#!/bin/sh\ncat >/dev/null\nexit 0\n"), 0o755);
  sb.write("hooks/rewrite-query.ts", "export default () => ({});\n");
  // the plugin server of docs/plugins.md (`bun ./server.ts`): the fixture server
  sb.write("plugins/guard/server.ts", `await import(${JSON.stringify(FAKE_SERVER)});\n`);
  return { ...sb, path: `${bin}:${sb.env.PATH}` };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(sb: ReturnType<typeof docSandbox>, command: string, env: Record<string, string> = {}): Promise<Ran> {
  const proc = Bun.spawn(["sh", "-c", command], { cwd: sb.dir, env: { ...sb.env, PATH: sb.path, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function expectSuccess(what: string, r: Ran): void {
  // the message carries what mcpx said, so a red run names the command and its complaint
  expect(`${what} → exit ${r.code}${r.code === 0 ? "" : `\n${r.stderr}${r.stdout}`}`).toBe(`${what} → exit 0`);
}

/** an MCP client on a stdio server command, as an agent host would start it; the tools it lists */
async function listToolsOf(sb: ReturnType<typeof docSandbox>, command: string, args: string[]): Promise<string[]> {
  const client = new Client({ name: "doc-test", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, cwd: sb.dir, env: { ...sb.env, PATH: sb.path }, stderr: "ignore" }));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

/** runs one shell block's commands in order; a daemon it starts lives until the block's end */
async function runShellBlock(block: DocBlock): Promise<void> {
  const sb = docSandbox();
  const daemons: Daemon[] = [];
  let env: Record<string, string> = {};
  if (block.marker === "oauth") {
    const config = JSON.parse(readFileSync(join(sb.dir, ".mcpx.json"), "utf8")) as { mcpServers: Record<string, unknown> };
    config.mcpServers.notes = { url: oauth!.url };
    sb.write(".mcpx.json", JSON.stringify(config, null, 2));
    env = { BROWSER };
  }
  const commands = shellCommands(block);
  try {
    for (const cmd of commands) await runCommand(sb, block, cmd, daemons, env);
  } finally {
    for (const d of daemons) expect({ daemon: d.address, exit: await d.stop() }).toEqual({ daemon: d.address, exit: 0 });
    // a daemon the block started in the background (mcpx daemon start, or --remote on demand) ends with it
    if (commands.some((c) => /\bdaemon (start|restart)\b|--remote\b|MCPX_REMOTE/.test(c.text))) await sh(sb, "mcpx daemon stop", env);
  }
}

async function runCommand(
  sb: ReturnType<typeof docSandbox>,
  block: DocBlock,
  cmd: DocCommand,
  daemons: Daemon[],
  env: Record<string, string> = {},
): Promise<void> {
  const what = `${block.file}:${cmd.line} \`${cmd.text}\``;
  const words = cmd.text.split(/\s+/);
  // the foreground daemon (no action): it runs for the rest of the block
  if (program(cmd) === "mcpx" && words[1] === "daemon" && !["start", "status", "stop", "restart"].includes(words[2] ?? "")) {
    // startDaemon runs the binary with these words; the doc's line has no shell syntax beyond them
    // and "$VAR" (expanded from the sandbox's environment, as sh would)
    const expanded = cmd.text.replace(/"\$(\w+)([^"\s]*)"/g, (_, name: string, rest: string) => (sb.env[name] ?? "") + rest);
    expect(expanded).toMatch(/^mcpx daemon(\s+[\w:/.=-]+)*$/);
    daemons.push(await startDaemon(sb, expanded.split(/\s+/).slice(2), { env: { PATH: sb.path } }));
    return;
  }
  if (program(cmd) === "mcpx" && words[1] === "serve") {
    expect(await listToolsOf(sb, "sh", ["-c", `exec ${cmd.text}`])).toContain("mcpx_exec");
    return;
  }
  if (program(cmd) === "mcpx") return expectSuccess(what, await sh(sb, cmd.text, env));
  if (program(cmd) === "curl") {
    const r = await sh(sb, cmd.text);
    expectSuccess(what, r);
    // curl exits 0 on any HTTP answer: the body must not be mcpx's error object
    expect(JSON.parse(r.stdout)).not.toHaveProperty("error");
    return;
  }
  if (cmd.text === "make release") return checkRelease(what);
  throw new Error(`${what}: the doc test has no way to run \`${program(cmd)}\`: teach test/e2e/docs-commands.test.ts how (see the convention at its top)`);
}

// ── make release (docs/install.md): run in the repository, where it builds ────

/** the binaries `make release` promises, and what each one's header must say it is */
const RELEASE: Record<string, { format: "elf" | "macho"; machine: number }> = {
  "mcpx-linux-x64": { format: "elf", machine: 0x3e },
  "mcpx-linux-x64-musl": { format: "elf", machine: 0x3e },
  "mcpx-linux-arm64": { format: "elf", machine: 0xb7 },
  "mcpx-linux-arm64-musl": { format: "elf", machine: 0xb7 },
  "mcpx-darwin-arm64": { format: "macho", machine: 0x0100000c },
  "mcpx-darwin-x64": { format: "macho", machine: 0x01000007 },
};

/** this machine's release binary: the one it can run, and the one the suite builds */
function hostRelease(): string {
  // glibcVersionRuntime is absent under musl
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  const musl = process.platform === "linux" && header?.glibcVersionRuntime === undefined;
  const name = `mcpx-${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
  if (!(name in RELEASE)) throw new Error(`this machine (${name}) is no release target: ${Object.keys(RELEASE).join(", ")}`);
  return name;
}

/** the binaries this run of `make release` builds: this machine's, or all of them when MCPX_TEST_RELEASE=all */
function releaseBuilt(): string[] {
  const which = process.env.MCPX_TEST_RELEASE;
  if (which === "all") return Object.keys(RELEASE);
  if (which === undefined || which === "" || which === "host") return [hostRelease()];
  throw new Error(`MCPX_TEST_RELEASE is ${JSON.stringify(which)}: use host (the default) or all`);
}

async function checkRelease(what: string): Promise<void> {
  const built = releaseBuilt();
  // make reads RELEASE_TARGETS from the environment: the command stays the documented `make release`
  const env = { ...process.env, RELEASE_TARGETS: built.length === Object.keys(RELEASE).length ? "" : built.map((n) => n.replace(/^mcpx-/, "")).join(" ") };
  const proc = Bun.spawn(["make", "release"], { cwd: ROOT, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expectSuccess(what, { code, stdout, stderr });
  const dir = join(ROOT, "dist/release");
  const sums = readFileSync(join(dir, "SHA256SUMS"), "utf8")
    .trim()
    .split("\n")
    .map((l) => l.split(/\s+/));
  expect(sums.map(([, name]) => name).sort()).toEqual(built.sort());
  for (const [hash, name] of sums) {
    const bytes = readFileSync(join(dir, name!));
    expect(`${name} ${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`).toBe(`${name} ${hash}`);
    const want = RELEASE[name!]!;
    const view = new DataView(bytes.buffer, bytes.byteOffset, 64);
    // ELF: 0x7f "ELF", e_machine at 18; Mach-O 64: magic 0xfeedfacf (little-endian), cputype at 4
    const got =
      view.getUint32(0, false) === 0x7f454c46
        ? { format: "elf", machine: view.getUint16(18, true) }
        : view.getUint32(0, true) === 0xfeedfacf
          ? { format: "macho", machine: view.getUint32(4, true) }
          : { format: "unknown", machine: 0 };
    expect({ name, ...got }).toEqual({ name, ...want });
  }
  // the one this machine can run is a working mcpx
  const native = Bun.spawn([join(dir, hostRelease()), "exec", "return 6 * 7"], {
    cwd: dir,
    env: { PATH: process.env.PATH!, HOME: join(dir, ".home") },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect((await new Response(native.stdout).text()).trim()).toBe("42");
  expect(await native.exited).toBe(0);
}

// ── the local stand-in for a network MCP server ──────────────────────────────

let remote: Daemon | undefined;
/** the client docs/auth.md shows as registered beforehand, known to the fixture; its secret is the variable the doc names */
const DOC_CLIENT = { id: "mcpx-at-acme", secret: "doc-client-secret", variable: "NOTES_CLIENT_SECRET" };
/** the stand-in for an OAuth-protected server (blocks marked oauth) */
let oauth: OAuthFixture | undefined;
beforeAll(async () => {
  const sb = sandbox();
  sb.write(".mcpx.json", "{}\n");
  remote = await startDaemon(sb, ["--daemon-address", "http://127.0.0.1:0"], { env: { MCPX_DAEMON_TOKEN: TOKEN } });
  oauth = await startOAuthServer(sb.env, { FAKE_OAUTH_CLIENT: `${DOC_CLIENT.id}:${DOC_CLIENT.secret}` });
});
afterAll(async () => {
  await stopDaemons();
  await oauth?.stop();
});

/** a network (or oauth) block's text with every non-loopback URL origin pointed at the local server */
function localised(block: DocBlock): { text: string; env: Record<string, string> } {
  if (block.marker === "oauth")
    return {
      text: block.body.replace(/https?:\/\/(?!127\.0\.0\.1|localhost|\[::1\])[^/"'\s]+/g, oauth!.origin),
      env: { BROWSER, [DOC_CLIENT.variable]: DOC_CLIENT.secret },
    };
  const local = new URL(remote!.address).origin;
  const text = block.body.replace(/https?:\/\/(?!127\.0\.0\.1|localhost|\[::1\])[^/"'\s]+/g, local);
  const env = Object.fromEntries([...block.body.matchAll(/\$\{(\w+)\}/g)].map((m) => [m[1]!, TOKEN]));
  return { text, env };
}

// ── the tests ──────────────────────────────────────────────────────────────

test("every fenced block in README.md and docs/*.md is one this test knows how to treat", () => {
  expect(BLOCKS.map(blockProblem).filter((p) => p !== undefined)).toEqual([]);
  expect(BLOCKS.filter((b) => SHELL_LANGS.includes(b.lang)).length).toBeGreaterThan(1);
});

test("a Dockerfile in the docs copies a release binary into an image and does nothing else", () => {
  const recipes = BLOCKS.filter((b) => DOCKER_LANGS.includes(b.lang));
  for (const b of recipes) {
    const lines = b.body
      .trim()
      .split("\n")
      .map((l) => l.trim());
    expect(lines[0]).toMatch(/^FROM \S+$/);
    for (const line of lines.slice(1)) expect(line).toMatch(new RegExp(`^COPY dist/release/(${Object.keys(RELEASE).join("|")}) /usr/local/bin/mcpx$`));
  }
});

test("the README's first block is exactly `make` and `make test` (the suite itself, so not run inside it)", () => {
  expect(SHELL_LANGS).toContain(README_FIRST.lang);
  expect(shellCommands(README_FIRST).map((c) => c.text)).toEqual(["make", "make test"]);
});

test("a config example that needs a network server says so with the network marker", () => {
  const unmarked = BLOCKS.filter(
    (b) => JSON_LANGS.includes(b.lang) && b.marker !== "network" && b.marker !== "oauth" && /"url"\s*:\s*"https?:\/\/(?!127\.0\.0\.1|localhost)/.test(b.body),
  );
  expect(unmarked.map((b) => `${b.file}:${b.line}`)).toEqual([]);
});

describe("documented commands", () => {
  for (const block of BLOCKS.filter((b) => SHELL_LANGS.includes(b.lang) && b !== README_FIRST)) {
    const cmds = shellCommands(block).map((c) => c.text);
    test(
      `${block.file}:${block.line} runs and each command exits 0: ${cmds.join(" ; ")}`,
      () => runShellBlock(block),
      COMMAND_TIMEOUT_MS * Math.max(1, cmds.length),
    );
  }
});

describe("documented config examples", () => {
  for (const doc of DOCS) {
    const blocks = BLOCKS.filter((b) => b.file === doc && JSON_LANGS.includes(b.lang) && b.marker !== "output");
    if (blocks.length === 0) continue;
    const isConfig = (b: DocBlock) => [".mcpx.json", "config.json"].includes(basename(examplePath(b)));
    // one sandbox per doc, holding the doc's other files (a plugin manifest, …) for its config examples:
    // setting up, not a test, since writing a file asserts nothing about mcpx
    let sb: ReturnType<typeof docSandbox>;
    beforeAll(() => {
      sb = docSandbox();
      for (const b of blocks) if (b.marker !== "client-config" && !isConfig(b)) sb.write(examplePath(b), b.body);
    });
    for (const block of blocks) {
      const path = examplePath(block);
      if (block.marker === "client-config") {
        test(
          `${doc}:${block.line} (an MCP client's config) starts each of its servers, which lists its tools`,
          async () => {
            const servers = (parseJsonc(block.body) as { mcpServers: Record<string, { command: string; args?: string[] }> }).mcpServers;
            expect(Object.keys(servers).length).toBeGreaterThan(0);
            for (const s of Object.values(servers)) expect((await listToolsOf(sb, s.command, s.args ?? [])).length).toBeGreaterThan(0);
          },
          COMMAND_TIMEOUT_MS,
        );
        continue;
      }
      if (!isConfig(block)) continue; // written by beforeAll
      test(
        `${doc}:${block.line} loads as ${path}, and its servers, hooks and script lines work`,
        async () => {
          const { text, env } = block.marker === "network" || block.marker === "oauth" ? localised(block) : { text: block.body, env: {} };
          sb.write(".mcpx.json", text);
          const config = parseJsonc(text) as Record<string, unknown>;
          expectSuccess(`${doc}:${block.line} mcpx settings list`, await sh(sb, "mcpx settings list", env));
          expectSuccess(`${doc}:${block.line} mcpx hooks list`, await sh(sb, "mcpx hooks list", env));
          // an OAuth server is listed once logged in, as the doc says to
          const urlServers = Object.entries((config.mcpServers ?? {}) as Record<string, { url?: string }>)
            .filter(([, s]) => s.url)
            .map(([n]) => n);
          if (block.marker === "oauth")
            for (const name of urlServers) expectSuccess(`${doc}:${block.line} mcpx auth ${name}`, await sh(sb, `mcpx auth ${name}`, env));
          if (config.mcpServers || config.plugins) expectSuccess(`${doc}:${block.line} mcpx ls`, await sh(sb, "mcpx ls", env));
          if (config.script) expectSuccess(`${doc}:${block.line} mcpx exec`, await sh(sb, "mcpx exec 'console.log(1)'", env));
        },
        COMMAND_TIMEOUT_MS * 4,
      );
    }
  }
});
