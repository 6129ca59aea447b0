// What `mcpx doctor` looks at, each as a row with its fix: the config files and their trust, the
// script runtimes (the embedded Bun, Deno for the sandbox, Node), /proc, the cache, state and socket
// directories, and each server's start (bounded by mcp.startTimeout, as every command's). A row is
// ok, warn (works, but something a user may want to change) or fail (something will not work).

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRuntime } from "../runtime/kinds.ts";
import { readCatalogue } from "../mcp/catalogue.ts";
import { cacheDir, homeNote, runtimeDir, stateDir } from "../paths/dirs.ts";
import { HAS_PROC } from "../process/proc-table.ts";
import type { Session } from "../session/session.ts";
import { openEngine } from "../session/engine.ts";
import { hookCalls } from "../exec/hook-calls.ts";
import { formatDuration } from "../settings/duration.ts";

export interface Check {
  area: "config" | "runtime" | "system" | "dir" | "server";
  subject: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  /** what to do about a warn or fail */
  fix?: string;
}

type Env = Record<string, string | undefined>;

/** how long `deno --version` / `node --version` may take: a bound on a hang, not a measurement (change freely) */
const VERSION_TIMEOUT_MS = 10_000;

/** each config file in force, and whether it is trusted; `project` is the session's project files */
export function configChecks(session: Session): Check[] {
  const checks: Check[] = [];
  const trust = new Map(session.trust.files.map((f) => [f.path, f.trusted]));
  const withheld = (file: string) => session.trust.withheld.filter((w) => w.file === file).map((w) => w.key);
  const own = session.config.files.map((f) => f.path);
  const imported = session.imports.kinds.flatMap((k) => k.files.map((file) => ({ file, kind: k.kind })));
  for (const { file, kind } of [...own.map((file) => ({ file, kind: undefined as string | undefined })), ...imported]) {
    const subject = kind ? `${file} (${kind})` : file;
    const t = trust.get(file);
    if (t === undefined) checks.push({ area: "config", subject, status: "ok", detail: "read; your own file, trusted without asking" });
    else if (t) checks.push({ area: "config", subject, status: "ok", detail: "read; a project file, trusted as it is now" });
    else {
      const keys = withheld(file);
      checks.push(
        keys.length
          ? {
              area: "config",
              subject,
              status: "warn",
              detail: `a project file, not trusted: ${keys.join(", ")} not used`,
              fix: `review it, then \`mcpx trust ${file}\``,
            }
          : { area: "config", subject, status: "ok", detail: "a project file, not trusted; nothing in it waits for trust" },
      );
    }
  }
  if (checks.length === 0)
    checks.push({
      area: "config",
      subject: "config files",
      status: "warn",
      detail: "none found here (no .mcpx.json walking up, no user file, no other tool's)",
      fix: "`mcpx config add NAME -- COMMAND ARGS…` writes ./.mcpx.json",
    });
  return checks;
}

/** the runtimes a script may run on; Deno's absence fails only when the settings sandbox the CLI's runs on Deno, or run on it */
export function runtimeChecks(session: Session | undefined): Check[] {
  const checks: Check[] = [{ area: "runtime", subject: "bun", status: "ok", detail: `embedded, ${process.versions.bun ?? "?"} (the default runtime)` }];
  const denoSandbox = session?.get("exec.sandboxEngine") === "deno";
  const sandboxed = session?.get("exec.sandbox") === "on" && denoSandbox;
  const wantsDeno = sandboxed || session?.get("script.runtime") === "deno";
  const deno = versionOf("deno");
  checks.push(
    deno.ok
      ? { area: "runtime", subject: "deno", status: "ok", detail: `${deno.path}, ${deno.version} (--runtime deno; the sandbox's with exec.sandboxEngine deno)` }
      : {
          area: "runtime",
          subject: "deno",
          status: wantsDeno ? "fail" : "warn",
          detail:
            `${deno.problem}: --runtime deno and the Deno sandbox (exec.sandboxEngine deno) need Deno 2; ` +
            "the default sandbox is embedded and needs nothing",
          fix: "install Deno 2 (`npm i -D deno` in the project, or on PATH)",
        },
  );
  const node = versionOf("node");
  checks.push(
    node.ok
      ? { area: "runtime", subject: "node", status: "ok", detail: `${node.path}, ${node.version} (--runtime node)` }
      : {
          area: "runtime",
          subject: "node",
          status: session?.get("script.runtime") === "node" ? "fail" : "warn",
          detail: `${node.problem}: only --runtime node needs it`,
          fix: "install Node.js, or keep the embedded runtime (--runtime bun)",
        },
  );
  return checks;
}

/** the runtime's path and `--version`, or why there is none that answers */
function versionOf(cmd: "deno" | "node"): { ok: true; path: string; version: string } | { ok: false; problem: string } {
  const path = findRuntime(cmd);
  if (!path) return { ok: false, problem: `not on PATH nor in a node_modules/.bin above ${process.cwd()} or the mcpx binary` };
  const r = spawnSync(path, ["--version"], { encoding: "utf8", timeout: VERSION_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] });
  if (r.status !== 0) return { ok: false, problem: `${path} --version ${r.error ? `failed (${r.error.message})` : `exited ${r.status ?? r.signal}`}` };
  return { ok: true, path, version: r.stdout.split("\n")[0]!.trim() };
}

/** /proc, which mcpx reads to end a run's whole process tree on Linux */
export function procCheck(): Check {
  if (HAS_PROC) return { area: "system", subject: "/proc", status: "ok", detail: "readable (a run's processes are found and ended by it)" };
  if (process.platform !== "linux")
    return { area: "system", subject: "/proc", status: "ok", detail: `none on ${process.platform}: processes are ended by process group` };
  return {
    area: "system",
    subject: "/proc",
    status: "fail",
    detail: "not mounted: a detached child of a server or script cannot be found to end it",
    fix: "mount it (`mount -t proc proc /proc`; a container has it unless its runtime removed it)",
  };
}

/** the directories mcpx writes, each tried by writing a file there */
export function dirChecks(env: Env): Check[] {
  const checks: Check[] = [];
  const note = homeNote(env);
  if (note)
    checks.push({ area: "dir", subject: "HOME", status: "warn", detail: note, fix: "set HOME, or XDG_CACHE_HOME and XDG_STATE_HOME, to writable directories" });
  const dirs: Array<[string, () => string, string]> = [
    ["cache", () => cacheDir(env), "XDG_CACHE_HOME"],
    ["state", () => stateDir(env), "XDG_STATE_HOME"],
    ["sockets", () => runtimeDir(env), "XDG_RUNTIME_DIR"],
  ];
  for (const [what, dirOf, variable] of dirs) {
    let dir = `(${variable})`;
    try {
      dir = dirOf();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const probe = join(dir, `.doctor-${process.pid}`);
      writeFileSync(probe, "");
      rmSync(probe);
      checks.push({ area: "dir", subject: what, status: "ok", detail: `${dir} is writable` });
    } catch (e) {
      checks.push({
        area: "dir",
        subject: what,
        status: "fail",
        detail: `${dir} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        fix: `make it writable, or set ${variable} to a directory that is`,
      });
    }
  }
  return checks;
}

/** each server started and its tools listed, as `mcpx ls` does, concurrently, reported in config order */
export async function serverChecks(session: Session): Promise<Check[]> {
  const engine = openEngine(session, { calls: hookCalls(session), untrustedPlugins: "list" });
  const bound = formatDuration(session.get("mcp.startTimeout"));
  try {
    const { rows } = await readCatalogue(engine.pool);
    return rows.map((r): Check => {
      const subject = r.server;
      if (r.untrusted)
        return {
          area: "server",
          subject,
          status: "warn",
          detail: `not started: ${r.origin} is not trusted`,
          fix: `review it, then \`mcpx trust ${r.origin}\``,
        };
      if (r.broken !== undefined)
        return { area: "server", subject, status: "fail", detail: r.broken, fix: `fix the entry in ${r.origin} (mcpx config list shows it)` };
      if (r.error !== undefined)
        return {
          area: "server",
          subject,
          status: "fail",
          detail: r.error,
          fix: `fix its entry in ${r.origin} (mcpx config list shows it); a slow start may take up to mcp.startTimeout (now ${bound})`,
        };
      return { area: "server", subject, status: "ok", detail: `started, ${r.tools!.length} tools (${r.origin})` };
    });
  } finally {
    await engine.close();
  }
}
