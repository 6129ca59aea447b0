// What every end-to-end test uses: the compiled binary, run in an isolated HOME/XDG tree with a
// config that points at the fixture servers, and a check that no process was left behind.

import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { trustFile } from "../../lib/trust/trust-files.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const MCPX = join(ROOT, "dist/mcpx");
export const BUN = join(ROOT, "node_modules/.bin/bun");
export const FAKE_SERVER = join(ROOT, "fixtures/servers/fake-server.ts");
export const EVERYTHING = join(ROOT, "node_modules/.bin/mcp-server-everything");
const BIN_PATH = `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`;

export interface Sandbox {
  dir: string;
  home: string;
  env: Record<string, string>;
  /**
   * writes a file relative to the sandbox dir and returns its absolute path; a project config file
   * (isProjectConfigName) is trusted as written, as a user who wrote it would (mcpx trust): a test of
   * an untrusted file writes it another way (test/e2e/trust-hostile.test.ts)
   */
  write(rel: string, text: string): string;
}

/**
 * the names mcpx treats as a project's config (lib/trust/project-trust.ts): its own files found walking
 * up, the imported tools' project files, plugin manifests
 */
function isProjectConfigName(path: string): boolean {
  const name = basename(path);
  const dir = basename(dirname(path));
  return (
    [".mcpx.json", ".mcp.json", "opencode.json", "opencode.jsonc", "mcpx-plugin.json"].includes(name) ||
    (name === "config.json" && dir === ".mcpx") ||
    (name === "mcp.json" && (dir === ".cursor" || dir === ".vscode"))
  );
}

/** the plugin manifests and demo config this repository ships, which tests use from where they are */
const SHIPPED_CONFIG = [join(ROOT, "fixtures/plugins/guard/mcpx-plugin.json"), join(ROOT, "fixtures/demo/.mcpx.json")];

const made: string[] = [];
// Removed on exit, not in afterAll: an afterAll in a shared module registers only for the first file
// importing it. bun test fires no "exit" event (measured), so under test/run.ts every sandbox lives
// in the run's own scratch directory (MCPX_TEST_TMP), which run.ts removes once bun test has ended.
process.on("exit", () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** a fresh directory with its own HOME and XDG dirs, and nothing from the machine's config */
export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(process.env.MCPX_TEST_TMP || tmpdir(), "mcpx-e2e-"));
  made.push(dir);
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: BIN_PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_RUNTIME_DIR: join(dir, "run"),
    NO_COLOR: "1",
  };
  for (const file of SHIPPED_CONFIG) trustFile(env, dir, file);
  return {
    dir,
    home,
    env,
    write(rel, text) {
      const p = join(dir, rel);
      mkdirSync(join(p, ".."), { recursive: true });
      writeFileSync(p, text);
      if (isProjectConfigName(p)) trustFile(env, dir, p);
      return p;
    },
  };
}

/** a stdio server entry for the fake fixture server, with knobs */
export function fakeServer(knobs: Record<string, string> = {}) {
  return { command: BUN, args: [FAKE_SERVER], env: knobs };
}

export function everythingServer() {
  return { command: EVERYTHING, args: [] as string[] };
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** runs the binary to completion */
export async function mcpx(
  sb: Sandbox,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; stdin?: string; killAfterMs?: number } = {},
): Promise<Result> {
  const proc = Bun.spawn([MCPX, ...args], {
    cwd: opts.cwd ?? sb.dir,
    env: { ...sb.env, ...opts.env },
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  // a hang becomes a failure (exit 137 and a note on stderr) instead of a stuck test
  let killed = false;
  const timer =
    opts.killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          killed = true;
          proc.kill("SIGKILL");
        }, opts.killAfterMs);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr: killed ? `${stderr}\n[harness] killed after ${opts.killAfterMs} ms\n` : stderr };
}

/** runs the binary with stdout and stderr on one pipe, to check their relative order */
export async function mcpxMerged(
  sb: Sandbox,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; output: string }> {
  const quoted = [MCPX, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const proc = Bun.spawn(["sh", "-c", `${quoted} 2>&1`], {
    cwd: opts.cwd ?? sb.dir,
    env: { ...sb.env, ...opts.env },
    stdout: "pipe",
    stderr: "inherit",
    stdin: "ignore",
  });
  const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, output };
}

/**
 * pids of live processes whose command line or environment mentions the marker. Read in-process: a
 * `grep marker /proc/*` child would find its own command line (and its shell's) and never report empty.
 */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    for (const file of ["cmdline", "environ"]) {
      try {
        if (readFileSync(`/proc/${name}/${file}`).includes(marker)) {
          pids.push(Number(name));
          break;
        }
      } catch {
        // gone already, or not ours to read
      }
    }
  }
  return pids;
}
